package tremorc;

import java.io.Serializable;

import org.apache.spark.sql.catalyst.FunctionIdentifier;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.catalyst.analysis.TypeCheckResult;
import org.apache.spark.sql.catalyst.expressions.Expression;
import org.apache.spark.sql.catalyst.expressions.ExpressionInfo;
import org.apache.spark.sql.catalyst.expressions.codegen.CodeBlock;
import org.apache.spark.sql.catalyst.expressions.codegen.CodegenContext;
import org.apache.spark.sql.catalyst.expressions.codegen.ExprCode;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;
import scala.Function1;
import scala.Tuple3;
import scala.collection.immutable.IndexedSeq;
import scala.collection.immutable.List;
import scala.collection.immutable.Seq;
import scala.jdk.javaapi.CollectionConverters;

/**
 * {@code tremor_json(struct)}: the struct as Tremor's JSON text ({@link JsonWriter}); NULL for a
 * NULL struct. Generated code calls the writer directly, so the struct's own fields are computed
 * by whole-stage code generation as for any other expression.
 *
 * <p>A plain {@code Expression} with one child: Java cannot extend Spark's {@code
 * UnaryExpression}, whose final Scala methods lack the generic signatures javac checks.
 */
public final class TremorJson extends Expression implements Serializable {
  private static final long serialVersionUID = 1L;
  public static final String NAME = "tremor_json";

  private final Expression child;
  private transient JsonWriter writer;

  public TremorJson(Expression child) {
    this.child = child;
  }

  /** The function's registration: its name, its description and its builder. */
  public static Tuple3<FunctionIdentifier, ExpressionInfo, Function1<Seq<Expression>, Expression>>
      description() {
    ExpressionInfo info = new ExpressionInfo(TremorJson.class.getName(), NAME);
    Function1<Seq<Expression>, Expression> builder = TremorJson::build;
    return new Tuple3<>(FunctionIdentifier.apply(NAME), info, builder);
  }

  private static Expression build(Seq<Expression> arguments) {
    if (arguments.size() != 1) {
      throw new IllegalArgumentException(
          NAME + " takes one argument (a struct), not " + arguments.size());
    }
    return new TremorJson(arguments.head());
  }

  JsonWriter writer() {
    if (writer == null) {
      writer = new JsonWriter((StructType) child.dataType());
    }
    return writer;
  }

  public Expression child() {
    return child;
  }

  @Override
  public DataType dataType() {
    return DataTypes.StringType;
  }

  @Override
  public TypeCheckResult checkInputDataTypes() {
    DataType type = child.dataType();
    if (!(type instanceof StructType)) {
      return new TypeCheckResult.TypeCheckFailure(
          NAME + " takes a struct, not " + type.simpleString());
    }
    String unsupported = JsonWriter.unsupported(type);
    if (unsupported != null) {
      return new TypeCheckResult.TypeCheckFailure(
          NAME + " writes structs, arrays, strings, integers and booleans, not " + unsupported);
    }
    return TypeCheckResult.TypeCheckSuccess$.MODULE$;
  }

  @Override
  public Seq<Expression> children() {
    return seq(java.util.List.of(child));
  }

  @Override
  public boolean nullable() {
    return child.nullable();
  }

  @Override
  public boolean foldable() {
    return child.foldable();
  }

  @Override
  public Object eval(InternalRow input) {
    Object struct = child.eval(input);
    return struct == null ? null : writer().write((InternalRow) struct);
  }

  @Override
  public ExprCode doGenCode(CodegenContext ctx, ExprCode ev) {
    ExprCode struct = child.genCode(ctx);
    String writerTerm = ctx.addReferenceObj("tremorJson", writer(), JsonWriter.class.getName());
    String code =
        String.format(
            "boolean %1$s = %2$s;%n"
                + "UTF8String %3$s = null;%n"
                + "if (!%1$s) {%n  %3$s = %4$s.write(%5$s);%n}%n",
            ev.isNull(), struct.isNull(), ev.value(), writerTerm, struct.value());
    return ev.copy(struct.code().$plus(block(code)), ev.isNull(), ev.value());
  }

  private static CodeBlock block(String code) {
    return new CodeBlock(seq(java.util.List.of(code)), seq(java.util.List.of()));
  }

  private static <T> List<T> seq(java.util.List<T> items) {
    return CollectionConverters.asScala(items).toList();
  }

  @Override
  public Expression withNewChildrenInternal(IndexedSeq<Expression> newChildren) {
    return new TremorJson(newChildren.head());
  }

  @Override
  public String prettyName() {
    return NAME;
  }

  @Override
  public int productArity() {
    return 1;
  }

  @Override
  public Object productElement(int n) {
    if (n != 0) {
      throw new IndexOutOfBoundsException(Integer.toString(n));
    }
    return child;
  }

  @Override
  public boolean canEqual(Object other) {
    return other instanceof TremorJson;
  }

  @Override
  public boolean equals(Object other) {
    return other instanceof TremorJson json && child.equals(json.child);
  }

  @Override
  public int hashCode() {
    return 31 * TremorJson.class.hashCode() + child.hashCode();
  }
}
