//! `.msg` definitions and their parser (REQ-MSG-DEF).
//!
//! The syntax is the ROS 2 one (rosidl_adapter's `.msg` grammar), one item a
//! line, `#` starting a comment:
//!
//! * a field: `type name` or `type name default`;
//! * a constant: `type NAME=value` (primitive or string types only);
//! * types: the primitives `bool byte char float32 float64 int8 uint8 int16
//!   uint16 int32 uint32 int64 uint64 string wstring`, bounded strings
//!   `string<=N` / `wstring<=N`, nested `pkg/Type` (also `pkg/msg/Type`) and
//!   same-package `Type`; `Header` alone is `std_msgs/Header` (the rosidl
//!   rule);
//! * arrays: `T[]` (unbounded sequence), `T[N]` (fixed array), `T[<=N]`
//!   (bounded sequence).
//!
//! Errors name the source (file path or built-in name), the 1-based line and
//! the field or constant.

use std::fmt;

use crate::MsgError;

/// A primitive (non-string) ROS 2 type. `byte` and `char` are both one
/// unsigned octet on the wire (rosidl maps them to `octet` and `uint8`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Primitive {
    /// `bool`: one octet, 0 or 1.
    Bool,
    /// `byte`: one octet.
    Byte,
    /// `char`: one octet (uint8).
    Char,
    /// `float32`
    F32,
    /// `float64`
    F64,
    /// `int8`
    I8,
    /// `uint8`
    U8,
    /// `int16`
    I16,
    /// `uint16`
    U16,
    /// `int32`
    I32,
    /// `uint32`
    U32,
    /// `int64`
    I64,
    /// `uint64`
    U64,
}

impl Primitive {
    /// The `.msg` spelling.
    pub fn msg_name(self) -> &'static str {
        match self {
            Primitive::Bool => "bool",
            Primitive::Byte => "byte",
            Primitive::Char => "char",
            Primitive::F32 => "float32",
            Primitive::F64 => "float64",
            Primitive::I8 => "int8",
            Primitive::U8 => "uint8",
            Primitive::I16 => "int16",
            Primitive::U16 => "uint16",
            Primitive::I32 => "int32",
            Primitive::U32 => "uint32",
            Primitive::I64 => "int64",
            Primitive::U64 => "uint64",
        }
    }

    /// Parse the `.msg` spelling.
    pub fn from_msg_name(s: &str) -> Option<Self> {
        Some(match s {
            "bool" => Primitive::Bool,
            "byte" => Primitive::Byte,
            "char" => Primitive::Char,
            "float32" => Primitive::F32,
            "float64" => Primitive::F64,
            "int8" => Primitive::I8,
            "uint8" => Primitive::U8,
            "int16" => Primitive::I16,
            "uint16" => Primitive::U16,
            "int32" => Primitive::I32,
            "uint32" => Primitive::U32,
            "int64" => Primitive::I64,
            "uint64" => Primitive::U64,
            _ => return None,
        })
    }

    /// Size (= CDR alignment) in bytes.
    pub fn size(self) -> usize {
        match self {
            Primitive::Bool | Primitive::Byte | Primitive::Char | Primitive::I8 | Primitive::U8 => {
                1
            }
            Primitive::I16 | Primitive::U16 => 2,
            Primitive::F32 | Primitive::I32 | Primitive::U32 => 4,
            Primitive::F64 | Primitive::I64 | Primitive::U64 => 8,
        }
    }
}

/// A message type's full name, `pkg/msg/Type`.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct TypeName {
    /// The package, e.g. `sensor_msgs`.
    pub pkg: String,
    /// The type, e.g. `LaserScan`.
    pub name: String,
}

impl TypeName {
    /// Build from parts (not checked).
    pub fn new(pkg: &str, name: &str) -> Self {
        Self {
            pkg: pkg.to_string(),
            name: name.to_string(),
        }
    }

    /// Parse `pkg/msg/Type` or `pkg/Type`.
    ///
    /// # Errors
    /// [`MsgError::BadTypeName`] for anything else.
    pub fn parse(s: &str) -> Result<Self, MsgError> {
        let parts: Vec<&str> = s.split('/').collect();
        let (pkg, name) = match parts.as_slice() {
            [p, n] => (*p, *n),
            [p, "msg", n] => (*p, *n),
            _ => {
                return Err(MsgError::BadTypeName {
                    name: s.to_string(),
                })
            }
        };
        if !is_pkg_name(pkg) || !is_type_name(name) {
            return Err(MsgError::BadTypeName {
                name: s.to_string(),
            });
        }
        Ok(Self::new(pkg, name))
    }
}

impl fmt::Display for TypeName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}/msg/{}", self.pkg, self.name)
    }
}

/// The element type of a field, without its array part.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum BaseType {
    /// A primitive.
    Primitive(Primitive),
    /// `string` (`bound: None`) or `string<=N` (at most N bytes of UTF-8).
    String {
        /// The bound, if any.
        bound: Option<usize>,
    },
    /// `wstring` or `wstring<=N` (N UTF-16 code units).
    WString {
        /// The bound, if any.
        bound: Option<usize>,
    },
    /// A nested message.
    Msg(TypeName),
}

/// The array part of a field type.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ArrayKind {
    /// Not an array.
    Single,
    /// `T[N]`: exactly N elements, no length on the wire.
    Fixed(usize),
    /// `T[]`: a sequence (u32 length then the elements).
    Unbounded,
    /// `T[<=N]`: a sequence of at most N elements.
    Bounded(usize),
}

impl ArrayKind {
    /// Whether the wire form starts with a u32 element count.
    pub fn is_sequence(self) -> bool {
        matches!(self, ArrayKind::Unbounded | ArrayKind::Bounded(_))
    }
}

/// A field's (or constant's) type.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FieldType {
    /// The element type.
    pub base: BaseType,
    /// Array or not.
    pub array: ArrayKind,
}

impl fmt::Display for BaseType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            BaseType::Primitive(p) => f.write_str(p.msg_name()),
            BaseType::String { bound: None } => f.write_str("string"),
            BaseType::String { bound: Some(n) } => write!(f, "string<={n}"),
            BaseType::WString { bound: None } => f.write_str("wstring"),
            BaseType::WString { bound: Some(n) } => write!(f, "wstring<={n}"),
            BaseType::Msg(t) => write!(f, "{}/{}", t.pkg, t.name),
        }
    }
}

impl fmt::Display for FieldType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.base)?;
        match self.array {
            ArrayKind::Single => Ok(()),
            ArrayKind::Fixed(n) => write!(f, "[{n}]"),
            ArrayKind::Unbounded => f.write_str("[]"),
            ArrayKind::Bounded(n) => write!(f, "[<={n}]"),
        }
    }
}

/// A field: `type name [default]`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Field {
    /// The field name.
    pub name: String,
    /// Its type.
    pub ty: FieldType,
    /// The default value as written (not part of the wire format).
    pub default: Option<String>,
}

/// A constant: `type NAME=value`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Constant {
    /// The constant name.
    pub name: String,
    /// Its type (primitive or string, never an array).
    pub ty: FieldType,
    /// The value as written, trimmed.
    pub value: String,
}

/// One message definition: its name, fields in wire order, and constants.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MsgDef {
    /// `pkg/msg/Type`.
    pub name: TypeName,
    /// Fields in declaration (= wire) order.
    pub fields: Vec<Field>,
    /// Constants in declaration order.
    pub constants: Vec<Constant>,
}

impl MsgDef {
    /// The definition as compact `.msg` text: one field or constant a line,
    /// no comments; [`parse_msg`] of it gives back an equal definition.
    pub fn to_msg_text(&self) -> String {
        let mut s = String::new();
        for c in &self.constants {
            s.push_str(&format!("{} {}={}\n", c.ty, c.name, c.value));
        }
        for f in &self.fields {
            match &f.default {
                Some(d) => s.push_str(&format!("{} {} {}\n", f.ty, f.name, d)),
                None => s.push_str(&format!("{} {}\n", f.ty, f.name)),
            }
        }
        s
    }
}

fn is_pkg_name(s: &str) -> bool {
    let mut c = s.chars();
    matches!(c.next(), Some('a'..='z'))
        && c.all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_')
}

fn is_type_name(s: &str) -> bool {
    let mut c = s.chars();
    matches!(c.next(), Some('A'..='Z')) && c.all(|c| c.is_ascii_alphanumeric())
}

/// rosidl's field name rule: `[a-z][a-z0-9_]*`, no `__`, no trailing `_`.
fn is_field_name(s: &str) -> bool {
    let mut c = s.chars();
    matches!(c.next(), Some('a'..='z'))
        && c.all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_')
        && !s.contains("__")
        && !s.ends_with('_')
}

/// rosidl's constant name rule: `[A-Z][A-Z0-9_]*`, no `__`, no trailing `_`.
fn is_constant_name(s: &str) -> bool {
    let mut c = s.chars();
    matches!(c.next(), Some('A'..='Z'))
        && c.all(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || c == '_')
        && !s.contains("__")
        && !s.ends_with('_')
}

/// Drop a `#` comment, leaving a `#` inside a quoted string alone.
fn strip_comment(line: &str) -> &str {
    let mut quote: Option<char> = None;
    let mut escaped = false;
    for (i, c) in line.char_indices() {
        match quote {
            Some(q) => {
                if escaped {
                    escaped = false;
                } else if c == '\\' {
                    escaped = true;
                } else if c == q {
                    quote = None;
                }
            }
            None => match c {
                '"' | '\'' => quote = Some(c),
                '#' => return &line[..i],
                _ => {}
            },
        }
    }
    line
}

fn parse_bound(s: &str) -> Option<usize> {
    if s.is_empty() || !s.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    s.parse().ok().filter(|n| *n > 0)
}

/// Parse a type token (`float64[9]`, `string<=8[<=3]`, `Header`,
/// `geometry_msgs/Point`) in the context of package `pkg`.
fn parse_type(tok: &str, pkg: &str) -> Result<FieldType, String> {
    let (base_s, array) = match tok.find('[') {
        None => (tok, ArrayKind::Single),
        Some(i) => {
            let inner = tok[i + 1..]
                .strip_suffix(']')
                .ok_or_else(|| format!("type '{tok}': array suffix is not closed by ']'"))?;
            let array = if inner.is_empty() {
                ArrayKind::Unbounded
            } else if let Some(n) = inner.strip_prefix("<=") {
                ArrayKind::Bounded(parse_bound(n).ok_or_else(|| {
                    format!("type '{tok}': bad sequence bound '{n}' (want a positive integer)")
                })?)
            } else {
                ArrayKind::Fixed(parse_bound(inner).ok_or_else(|| {
                    format!("type '{tok}': bad array size '{inner}' (want a positive integer)")
                })?)
            };
            (&tok[..i], array)
        }
    };
    let base = if let Some(p) = Primitive::from_msg_name(base_s) {
        BaseType::Primitive(p)
    } else if base_s == "string" {
        BaseType::String { bound: None }
    } else if base_s == "wstring" {
        BaseType::WString { bound: None }
    } else if let Some(n) = base_s.strip_prefix("string<=") {
        BaseType::String {
            bound: Some(parse_bound(n).ok_or_else(|| {
                format!("type '{tok}': bad string bound '{n}' (want a positive integer)")
            })?),
        }
    } else if let Some(n) = base_s.strip_prefix("wstring<=") {
        BaseType::WString {
            bound: Some(parse_bound(n).ok_or_else(|| {
                format!("type '{tok}': bad wstring bound '{n}' (want a positive integer)")
            })?),
        }
    } else if base_s == "Header" {
        BaseType::Msg(TypeName::new("std_msgs", "Header"))
    } else if base_s.contains('/') {
        BaseType::Msg(
            TypeName::parse(base_s)
                .map_err(|_| format!("unknown type '{base_s}' (not a primitive, not pkg/Type)"))?,
        )
    } else if is_type_name(base_s) {
        BaseType::Msg(TypeName::new(pkg, base_s))
    } else {
        return Err(format!(
            "unknown type '{base_s}' (not a primitive, not a message type name)"
        ));
    };
    Ok(FieldType { base, array })
}

/// Check a constant's value against its type.
fn check_constant(ty: &FieldType, value: &str) -> Result<(), String> {
    let bad = |what: &str| Err(format!("value '{value}' is not {what}"));
    match &ty.base {
        BaseType::Primitive(p) => {
            let ok = match p {
                Primitive::Bool => matches!(value, "true" | "false" | "True" | "False" | "0" | "1"),
                Primitive::F32 | Primitive::F64 => value.parse::<f64>().is_ok(),
                Primitive::Byte | Primitive::Char | Primitive::U8 => parse_int(value)
                    .map(|v| (0..=u8::MAX as i128).contains(&v))
                    .unwrap_or(false),
                Primitive::I8 => in_range(value, i8::MIN as i128, i8::MAX as i128),
                Primitive::I16 => in_range(value, i16::MIN as i128, i16::MAX as i128),
                Primitive::U16 => in_range(value, 0, u16::MAX as i128),
                Primitive::I32 => in_range(value, i32::MIN as i128, i32::MAX as i128),
                Primitive::U32 => in_range(value, 0, u32::MAX as i128),
                Primitive::I64 => in_range(value, i64::MIN as i128, i64::MAX as i128),
                Primitive::U64 => in_range(value, 0, u64::MAX as i128),
            };
            if ok {
                Ok(())
            } else {
                bad(&format!("a {} value", p.msg_name()))
            }
        }
        BaseType::String { .. } | BaseType::WString { .. } => Ok(()),
        BaseType::Msg(_) => Err("constants must be of a primitive or string type".into()),
    }
}

fn parse_int(s: &str) -> Option<i128> {
    let (neg, digits) = match s.strip_prefix('-') {
        Some(d) => (true, d),
        None => (false, s),
    };
    let v = if let Some(h) = digits
        .strip_prefix("0x")
        .or_else(|| digits.strip_prefix("0X"))
    {
        i128::from_str_radix(h, 16).ok()?
    } else {
        digits.parse::<i128>().ok()?
    };
    Some(if neg { -v } else { v })
}

fn in_range(s: &str, lo: i128, hi: i128) -> bool {
    parse_int(s).is_some_and(|v| v >= lo && v <= hi)
}

/// Parse the text of `pkg/msg/<name>.msg`.
///
/// `source_name` (a file path or a built-in name) is used in error messages
/// only.
///
/// # Errors
/// [`MsgError::Parse`] naming `source_name`, the 1-based line and the field
/// or constant: an unknown or malformed type, a bad name, a missing name, a
/// constant of an array or message type, a constant value out of its type's
/// range, a duplicate name.
pub fn parse_msg(pkg: &str, name: &str, text: &str, source_name: &str) -> Result<MsgDef, MsgError> {
    if !is_pkg_name(pkg) || !is_type_name(name) {
        return Err(MsgError::BadTypeName {
            name: format!("{pkg}/{name}"),
        });
    }
    let mut def = MsgDef {
        name: TypeName::new(pkg, name),
        fields: Vec::new(),
        constants: Vec::new(),
    };
    for (i, raw) in text.lines().enumerate() {
        let lineno = i + 1;
        let err = |reason: String| MsgError::Parse {
            source_name: source_name.to_string(),
            line: lineno,
            reason,
        };
        let line = strip_comment(raw).trim();
        if line.is_empty() {
            continue;
        }
        let (type_tok, rest) = match line.split_once(|c: char| c.is_whitespace()) {
            Some((t, r)) => (t, r.trim_start()),
            None => (line, ""),
        };
        if rest.is_empty() {
            return Err(err(format!("'{line}': a type without a field name")));
        }
        let what_name = rest
            .split(|c: char| c == '=' || c.is_whitespace())
            .next()
            .unwrap_or(rest)
            .to_string();
        let ty = parse_type(type_tok, pkg).map_err(|r| err(format!("field '{what_name}': {r}")))?;
        let taken = |n: &str, def: &MsgDef| {
            def.fields.iter().any(|f| f.name == n) || def.constants.iter().any(|c| c.name == n)
        };
        if let Some(eq) = rest.find('=') {
            // rosidl: a '=' in the rest of the line makes it a constant.
            let cname = rest[..eq].trim_end();
            let value = rest[eq + 1..].trim();
            if !is_constant_name(cname) {
                return Err(err(format!(
                    "constant '{cname}': not a constant name (want [A-Z][A-Z0-9_]*)"
                )));
            }
            if ty.array != ArrayKind::Single {
                return Err(err(format!(
                    "constant '{cname}': constants cannot be arrays ({ty})"
                )));
            }
            if value.is_empty() {
                return Err(err(format!("constant '{cname}': no value after '='")));
            }
            check_constant(&ty, value).map_err(|r| err(format!("constant '{cname}': {r}")))?;
            if taken(cname, &def) {
                return Err(err(format!("constant '{cname}': name used twice")));
            }
            def.constants.push(Constant {
                name: cname.to_string(),
                ty,
                value: value.to_string(),
            });
        } else {
            let (fname, default) = match rest.split_once(|c: char| c.is_whitespace()) {
                Some((n, d)) => (n, Some(d.trim().to_string())),
                None => (rest, None),
            };
            if !is_field_name(fname) {
                return Err(err(format!(
                    "field '{fname}': not a field name (want [a-z][a-z0-9_]*, no '__', no trailing '_')"
                )));
            }
            if taken(fname, &def) {
                return Err(err(format!("field '{fname}': name used twice")));
            }
            def.fields.push(Field {
                name: fname.to_string(),
                ty,
                default,
            });
        }
    }
    Ok(def)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn p(text: &str) -> Result<MsgDef, MsgError> {
        parse_msg("demo_msgs", "Demo", text, "demo_msgs/msg/Demo.msg")
    }

    #[test]
    fn fields_constants_comments_and_arrays() {
        let d = p("# leading comment\n\
                   int8 LOW=-2  # a constant\n\
                   string GREETING=\"hi # not a comment\"\n\
                   \n\
                   Header header\n\
                   float64[9] covariance\n\
                   float32[] ranges\n\
                   uint8[<=4] small\n\
                   string<=8 name\n\
                   string<=5[<=3] names\n\
                   wstring ws\n\
                   geometry_msgs/Point p   # trailing\n\
                   Other o\n\
                   float64 w 1.0\n")
        .unwrap();
        assert_eq!(d.constants.len(), 2);
        assert_eq!(d.constants[0].value, "-2");
        assert_eq!(d.constants[1].value, "\"hi # not a comment\"");
        let names: Vec<&str> = d.fields.iter().map(|f| f.name.as_str()).collect();
        assert_eq!(
            names,
            [
                "header",
                "covariance",
                "ranges",
                "small",
                "name",
                "names",
                "ws",
                "p",
                "o",
                "w"
            ]
        );
        assert_eq!(
            d.fields[0].ty.base,
            BaseType::Msg(TypeName::new("std_msgs", "Header"))
        );
        assert_eq!(d.fields[1].ty.array, ArrayKind::Fixed(9));
        assert_eq!(d.fields[2].ty.array, ArrayKind::Unbounded);
        assert_eq!(d.fields[3].ty.array, ArrayKind::Bounded(4));
        assert_eq!(d.fields[4].ty.base, BaseType::String { bound: Some(8) });
        assert_eq!(
            d.fields[5].ty,
            FieldType {
                base: BaseType::String { bound: Some(5) },
                array: ArrayKind::Bounded(3)
            }
        );
        assert_eq!(d.fields[6].ty.base, BaseType::WString { bound: None });
        assert_eq!(
            d.fields[7].ty.base,
            BaseType::Msg(TypeName::new("geometry_msgs", "Point"))
        );
        assert_eq!(
            d.fields[8].ty.base,
            BaseType::Msg(TypeName::new("demo_msgs", "Other"))
        );
    }

    #[test]
    fn default_values_are_kept() {
        let d = p("float64 w 1.0\nstring s \"a b\"\n").unwrap();
        assert_eq!(d.fields[0].default.as_deref(), Some("1.0"));
        assert_eq!(d.fields[1].default.as_deref(), Some("\"a b\""));
    }

    #[test]
    fn compact_text_parses_back_equal() {
        let d = p("int8 LOW=-2\nHeader header\nfloat64[9] c\nstring<=5[<=3] n\nfloat64 w 1.0\n")
            .unwrap();
        let again = p(&d.to_msg_text()).unwrap();
        assert_eq!(d, again);
    }

    fn err(text: &str) -> String {
        p(text).unwrap_err().to_string()
    }

    #[test]
    fn errors_name_file_line_and_field() {
        assert_eq!(
            err("int32 a\n\nfloat65 speed\n"),
            "demo_msgs/msg/Demo.msg:3: field 'speed': unknown type 'float65' (not a primitive, not a message type name)"
        );
        assert_eq!(
            err("float64[0] c\n"),
            "demo_msgs/msg/Demo.msg:1: field 'c': type 'float64[0]': bad array size '0' (want a positive integer)"
        );
        assert_eq!(
            err("float64[<=x] c\n"),
            "demo_msgs/msg/Demo.msg:1: field 'c': type 'float64[<=x]': bad sequence bound 'x' (want a positive integer)"
        );
        assert_eq!(
            err("# c\nfloat64\n"),
            "demo_msgs/msg/Demo.msg:2: 'float64': a type without a field name"
        );
        assert_eq!(
            err("int32 a\nint32 a\n"),
            "demo_msgs/msg/Demo.msg:2: field 'a': name used twice"
        );
        assert_eq!(
            err("int32 Speed\n"),
            "demo_msgs/msg/Demo.msg:1: field 'Speed': not a field name (want [a-z][a-z0-9_]*, no '__', no trailing '_')"
        );
        assert_eq!(
            err("uint8 X=256\n"),
            "demo_msgs/msg/Demo.msg:1: constant 'X': value '256' is not a uint8 value"
        );
        assert_eq!(
            err("int8[2] X=1\n"),
            "demo_msgs/msg/Demo.msg:1: constant 'X': constants cannot be arrays (int8[2])"
        );
        assert_eq!(
            err("geometry_msgs/Point X=1\n"),
            "demo_msgs/msg/Demo.msg:1: constant 'X': constants must be of a primitive or string type"
        );
        assert_eq!(
            err("float64[3 c\n"),
            "demo_msgs/msg/Demo.msg:1: field 'c': type 'float64[3': array suffix is not closed by ']'"
        );
    }

    #[test]
    fn type_names() {
        assert_eq!(
            TypeName::parse("sensor_msgs/msg/Imu").unwrap().to_string(),
            "sensor_msgs/msg/Imu"
        );
        assert_eq!(
            TypeName::parse("sensor_msgs/Imu").unwrap(),
            TypeName::new("sensor_msgs", "Imu")
        );
        for bad in [
            "Imu",
            "sensor_msgs/srv/Imu",
            "sensor_msgs/imu",
            "a/b/c/D",
            "",
        ] {
            assert!(TypeName::parse(bad).is_err(), "{bad}");
        }
    }
}
