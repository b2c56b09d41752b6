package tremorc;

import org.apache.spark.sql.SparkSessionExtensions;
import scala.Function1;
import scala.runtime.BoxedUnit;

/**
 * {@code spark.sql.extensions=tremorc.TremorExtensions}: registers {@code tremor_json} in every
 * session (and on a Spark Connect server, whose clients then call it by name).
 */
public final class TremorExtensions implements Function1<SparkSessionExtensions, BoxedUnit> {
  @Override
  public BoxedUnit apply(SparkSessionExtensions extensions) {
    extensions.injectFunction(TremorJson.description());
    return BoxedUnit.UNIT;
  }
}
