package tremorc;

import java.io.Serializable;
import java.util.Arrays;

import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.catalyst.expressions.SpecializedGetters;
import org.apache.spark.sql.catalyst.util.ArrayData;
import org.apache.spark.sql.types.ArrayType;
import org.apache.spark.sql.types.BooleanType;
import org.apache.spark.sql.types.ByteType;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.IntegerType;
import org.apache.spark.sql.types.LongType;
import org.apache.spark.sql.types.NullType;
import org.apache.spark.sql.types.ShortType;
import org.apache.spark.sql.types.StringType;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.unsafe.Platform;
import org.apache.spark.unsafe.types.UTF8String;

/**
 * Tremor's JSON text of a struct, written in one pass from Spark's internal row into UTF-8.
 *
 * <p>Invariant: the text equals what Spark's {@code to_json} writes with {@code ignoreNullFields}
 * (NULL fields left out, NULL array elements written {@code null}), except that a control
 * character's {@code \\u00XX} escape has lower-case hex, as Tremor's encoder writes it. Strings
 * are copied byte for byte (escaping {@code "}, {@code \\} and the characters below U+0020); a
 * string that is not valid UTF-8 is written as Java decodes it, as {@code to_json} does.
 *
 * <p>Types: struct, array, string, the integers, boolean and null; any other is refused when the
 * writer is built ({@link #unsupported}), so a plan never writes a type differently.
 */
public final class JsonWriter implements Serializable {
  private static final long serialVersionUID = 1L;
  private static final byte[] HEX = "0123456789abcdef".getBytes();
  private static final byte[] TRUE = "true".getBytes();
  private static final byte[] FALSE = "false".getBytes();
  private static final byte[] NULL = "null".getBytes();
  private static final long ONES = 0x0101010101010101L;
  private static final long HIGH_BITS = 0x8080808080808080L;
  private static final ThreadLocal<Buffer> BUFFERS = ThreadLocal.withInitial(Buffer::new);

  private final StructNode root;

  public JsonWriter(StructType type) {
    this.root = new StructNode(type);
  }

  /** The text of {@code row}, a struct of the writer's type. */
  public UTF8String write(InternalRow row) {
    Buffer out = BUFFERS.get();
    out.pos = 0;
    root.writeRow(out, row);
    return UTF8String.fromBytes(Arrays.copyOf(out.bytes, out.pos));
  }

  /** The first type in {@code type} the writer cannot write, or null when it writes them all. */
  public static String unsupported(DataType type) {
    try {
      node(type);
      return null;
    } catch (UnsupportedType refused) {
      return refused.type;
    }
  }

  private static Node node(DataType type) {
    if (type instanceof StructType struct) {
      return new StructNode(struct);
    }
    if (type instanceof ArrayType array) {
      return new ArrayNode(node(array.elementType()));
    }
    if (type instanceof StringType) {
      return new StringNode();
    }
    if (integer(type)) {
      return new IntegerNode(type);
    }
    if (type instanceof BooleanType) {
      return new BooleanNode();
    }
    if (type instanceof NullType) {
      return new NullNode();
    }
    throw new UnsupportedType(type.simpleString());
  }

  /** A type the writer has no node for (its {@code simpleString}). */
  static final class UnsupportedType extends IllegalArgumentException {
    private static final long serialVersionUID = 1L;
    final String type;

    UnsupportedType(String type) {
      super("tremor_json cannot write " + type);
      this.type = type;
    }
  }

  private static boolean integer(DataType type) {
    return type instanceof LongType
        || type instanceof IntegerType
        || type instanceof ShortType
        || type instanceof ByteType;
  }

  /** A growable UTF-8 byte buffer, one per thread. */
  static final class Buffer {
    byte[] bytes = new byte[1024];
    int pos;

    void reserve(int more) {
      if (pos + more > bytes.length) {
        bytes = Arrays.copyOf(bytes, Math.max(bytes.length * 2, pos + more));
      }
    }

    void put(byte b) {
      reserve(1);
      bytes[pos++] = b;
    }

    void put(byte[] b) {
      reserve(b.length);
      System.arraycopy(b, 0, bytes, pos, b.length);
      pos += b.length;
    }
  }

  /** Writes the value at {@code ordinal} of {@code source}, which is not NULL there. */
  abstract static class Node implements Serializable {
    private static final long serialVersionUID = 1L;

    abstract void write(Buffer out, SpecializedGetters source, int ordinal);
  }

  static final class StructNode extends Node {
    private static final long serialVersionUID = 1L;
    private final byte[][] keys; // `"name":` per field, escaped
    private final Node[] values;

    StructNode(StructType type) {
      StructField[] fields = type.fields();
      keys = new byte[fields.length][];
      values = new Node[fields.length];
      for (int i = 0; i < fields.length; i++) {
        Buffer key = new Buffer();
        StringNode.escaped(key, UTF8String.fromString(fields[i].name()));
        key.put((byte) ':');
        keys[i] = Arrays.copyOf(key.bytes, key.pos);
        values[i] = node(fields[i].dataType());
      }
    }

    @Override
    void write(Buffer out, SpecializedGetters source, int ordinal) {
      writeRow(out, source.getStruct(ordinal, keys.length));
    }

    void writeRow(Buffer out, InternalRow row) {
      out.put((byte) '{');
      boolean first = true;
      for (int i = 0; i < keys.length; i++) {
        if (row.isNullAt(i)) {
          continue;
        }
        if (!first) {
          out.put((byte) ',');
        }
        first = false;
        out.put(keys[i]);
        values[i].write(out, row, i);
      }
      out.put((byte) '}');
    }
  }

  static final class ArrayNode extends Node {
    private static final long serialVersionUID = 1L;
    private final Node element;

    ArrayNode(Node element) {
      this.element = element;
    }

    @Override
    void write(Buffer out, SpecializedGetters source, int ordinal) {
      ArrayData array = source.getArray(ordinal);
      int n = array.numElements();
      out.put((byte) '[');
      for (int i = 0; i < n; i++) {
        if (i > 0) {
          out.put((byte) ',');
        }
        if (array.isNullAt(i)) {
          out.put(NULL);
        } else {
          element.write(out, array, i);
        }
      }
      out.put((byte) ']');
    }
  }

  static final class StringNode extends Node {
    private static final long serialVersionUID = 1L;

    @Override
    void write(Buffer out, SpecializedGetters source, int ordinal) {
      escaped(out, source.getUTF8String(ordinal));
    }

    /** {@code "text"} with JSON's escapes; an invalid UTF-8 string as Java decodes it. */
    static void escaped(Buffer out, UTF8String text) {
      int start = out.pos;
      int n = text.numBytes();
      Object base = text.getBaseObject();
      long offset = text.getBaseOffset();
      out.reserve(n + 2);
      byte[] bytes = out.bytes;
      int pos = start;
      bytes[pos++] = '"';
      long high = 0; // the high bits of every byte copied a word at a time
      int i = 0;
      for (; i + 8 <= n; i += 8) { // eight bytes at a time while none needs an escape
        long word = Platform.getLong(base, offset + i);
        if (needsEscape(word)) {
          break;
        }
        Platform.putLong(bytes, Platform.BYTE_ARRAY_OFFSET + pos, word);
        pos += 8;
        high |= word;
      }
      boolean ascii = (high & HIGH_BITS) == 0;
      for (; i < n; i++) {
        byte b = Platform.getByte(base, offset + i);
        if (b >= 0x20 && b != '"' && b != '\\') {
          bytes[pos++] = b;
          continue;
        }
        if (b < 0) {
          ascii = false;
          bytes[pos++] = b;
          continue;
        }
        out.pos = pos;
        out.reserve(6 + (n - i) + 1);
        bytes = out.bytes;
        pos = escape(bytes, pos, b);
      }
      out.pos = pos;
      out.put((byte) '"');
      if (!ascii && !text.isValid()) {
        out.pos = start;
        escaped(out, UTF8String.fromString(text.toString()));
      }
    }

    /**
     * Some byte of {@code word} is below 0x20, a quote or a backslash (exact: the classic
     * "has a byte less than n" and "has a zero byte" word tests; bytes of 0x80 and above are
     * never flagged).
     */
    static boolean needsEscape(long word) {
      long control = (word - 0x2020202020202020L) & ~word;
      long quote = word ^ 0x2222222222222222L;
      long backslash = word ^ 0x5C5C5C5C5C5C5C5CL;
      quote = (quote - ONES) & ~quote;
      backslash = (backslash - ONES) & ~backslash;
      return ((control | quote | backslash) & HIGH_BITS) != 0;
    }

    private static int escape(byte[] bytes, int pos, byte b) {
      bytes[pos++] = '\\';
      switch (b) {
        case '"' -> bytes[pos++] = '"';
        case '\\' -> bytes[pos++] = '\\';
        case '\b' -> bytes[pos++] = 'b';
        case '\t' -> bytes[pos++] = 't';
        case '\n' -> bytes[pos++] = 'n';
        case '\f' -> bytes[pos++] = 'f';
        case '\r' -> bytes[pos++] = 'r';
        default -> {
          bytes[pos++] = 'u';
          bytes[pos++] = '0';
          bytes[pos++] = '0';
          bytes[pos++] = HEX[b >> 4];
          bytes[pos++] = HEX[b & 0xF];
        }
      }
      return pos;
    }
  }

  /** A LONG, INT, SHORT or BYTE, in decimal. */
  static final class IntegerNode extends Node {
    private static final long serialVersionUID = 1L;
    private final int width; // 8, 4, 2 or 1 bytes

    IntegerNode(DataType type) {
      width = type.defaultSize();
    }

    @Override
    void write(Buffer out, SpecializedGetters source, int ordinal) {
      long value =
          switch (width) {
            case 8 -> source.getLong(ordinal);
            case 4 -> source.getInt(ordinal);
            case 2 -> source.getShort(ordinal);
            default -> source.getByte(ordinal);
          };
      if (value == Long.MIN_VALUE) {
        out.put(Long.toString(value).getBytes());
        return;
      }
      out.reserve(20);
      if (value < 0) {
        out.bytes[out.pos++] = '-';
        value = -value;
      }
      int digits = 1;
      for (long rest = value / 10; rest != 0; rest /= 10) {
        digits++;
      }
      int end = out.pos + digits;
      for (int at = end - 1; at >= out.pos; at--) {
        out.bytes[at] = (byte) ('0' + value % 10);
        value /= 10;
      }
      out.pos = end;
    }
  }

  static final class BooleanNode extends Node {
    private static final long serialVersionUID = 1L;

    @Override
    void write(Buffer out, SpecializedGetters source, int ordinal) {
      out.put(source.getBoolean(ordinal) ? TRUE : FALSE);
    }
  }

  static final class NullNode extends Node {
    private static final long serialVersionUID = 1L;

    @Override
    void write(Buffer out, SpecializedGetters source, int ordinal) {
      out.put(NULL);
    }
  }
}
