//! Strict YAML loading shared by every Breakbench configuration file.
//!
//! Every config struct uses `#[serde(deny_unknown_fields)]`; this module turns
//! any parse failure into an error that names the file, the line and column,
//! and the field path (`robot.footprint_radius_m`), as a user needs to fix it.

use std::path::Path;

use serde::de::DeserializeOwned;

mod locate;

pub use locate::locate;

/// A configuration file that could not be loaded.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConfigError {
    /// The file (as given).
    pub path: String,
    /// 1-based line of the offending value, 0 if unknown.
    pub line: usize,
    /// 1-based column, 0 if unknown.
    pub column: usize,
    /// Dotted path of the field (`.` for the document root).
    pub field: String,
    /// What is wrong.
    pub message: String,
}

impl std::fmt::Display for ConfigError {
    /// `file:line:column: field 'f': message`, or `file: field 'f': message`
    /// when the line is unknown (checks made after parsing), or
    /// `file: message` when the error is about the whole file (an empty
    /// field: a file that cannot be read).
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.field.is_empty() {
            if self.line > 0 {
                write!(
                    f,
                    "{}:{}:{}: {}",
                    self.path, self.line, self.column, self.message
                )
            } else {
                write!(f, "{}: {}", self.path, self.message)
            }
        } else if self.line > 0 {
            write!(
                f,
                "{}:{}:{}: field '{}': {}",
                self.path, self.line, self.column, self.field, self.message
            )
        } else {
            write!(f, "{}: field '{}': {}", self.path, self.field, self.message)
        }
    }
}

impl std::error::Error for ConfigError {}

impl ConfigError {
    /// An error about `field` of `path` at no particular line (semantic checks
    /// after parsing: a negative radius, an empty polygon).
    pub fn semantic(path: &str, field: &str, message: impl Into<String>) -> Self {
        Self {
            path: path.into(),
            line: 0,
            column: 0,
            field: field.into(),
            message: message.into(),
        }
    }
    /// Fills in the line and column of a semantic error from the YAML `text`
    /// it was found in, by locating its field path (see [`locate`]); a field
    /// that is absent from the text (a missing optional key) is placed at its
    /// nearest enclosing field that is present. Errors that already carry a
    /// line, or with no part of the path in `text`, are returned unchanged.
    pub fn located(mut self, text: &str) -> Self {
        let mut field = self.field.as_str();
        while self.line == 0 && !field.is_empty() {
            if let Some((line, column)) = locate(text, field, 1) {
                self.line = line;
                self.column = column;
            }
            field = &field[..field.rfind(['.', '[']).unwrap_or(0)];
        }
        self
    }
}

/// `text` without a leading UTF-8 byte order mark (U+FEFF), which the
/// YAML parser would count as content of the first line.
fn without_bom(text: &str) -> &str {
    text.strip_prefix('\u{feff}').unwrap_or(text)
}

/// Parses YAML `text` (read from `path`) into `T`, reporting line, column and
/// field path on failure. A leading byte order mark is skipped (lines count
/// as an editor shows them); every string of the document (keys and values)
/// is checked by [`check_strings`]; a message quoting the file's content
/// quotes at most [`crate::text::QUOTE_CHARS`] characters of it, escaped.
pub fn parse_yaml<T: DeserializeOwned>(text: &str, path: &str) -> Result<T, ConfigError> {
    let text = without_bom(text);
    let value = parse_yaml_raw(text, path).map_err(|mut e| {
        e.message = cap_quotes(&e.message);
        // The YAML scanner refuses a raw control character with a byte
        // offset only: report its line and column, and which it is.
        if e.message.starts_with("control characters are not allowed") {
            let raw = |c: char| crate::text::unsafe_char(c) && !matches!(c, '\n' | '\t' | '\r');
            if let Some((i, c)) = text.char_indices().find(|(_, c)| raw(*c)) {
                e.line = text[..i].matches('\n').count() + 1;
                e.column = text[..i]
                    .rsplit('\n')
                    .next()
                    .map_or(0, |l| l.chars().count())
                    + 1;
                e.field = String::new();
                e.message = format!(
                    "raw control character U+{:04X}: no text in a configuration file may hold one",
                    c as u32
                );
            }
        }
        e
    })?;
    check_strings(text, path)?;
    Ok(value)
}

/// Every string of the YAML `text`, keys and values, free of
/// [`crate::text::unsafe_char`]s other than line feed and tab (which a
/// multi-line value may hold): a control character (an escape sequence
/// `"\e[2J"`), a bidirectional override or U+FFFE/U+FFFF would reach the
/// terminal, the logs and the XML/HTML outputs that quote the file.
///
/// # Errors
/// A [`ConfigError`] naming the file, the line and the field of the first
/// such string, the character (as `U+001B`) and its position in the string.
pub fn check_strings(text: &str, path: &str) -> Result<(), ConfigError> {
    use crate::text::unsafe_char;
    let bad = |c: char| unsafe_char(c) && c != '\n' && c != '\t';
    // Only a raw unsafe character (a carriage return of a CRLF file is
    // not one inside a value) or a double-quoted escape can put one in a
    // string: without both the walk is skipped.
    if !text.contains('\\') && !text.chars().any(|c| bad(c) && c != '\r') {
        return Ok(());
    }
    let Ok(doc) = serde_yaml_ng::from_str::<serde_yaml_ng::Value>(text) else {
        return Ok(()); // parse_yaml already accepted it as a T
    };
    fn walk(
        v: &serde_yaml_ng::Value,
        at: &str,
        bad: &dyn Fn(char) -> bool,
    ) -> Option<(String, String)> {
        use serde_yaml_ng::Value;
        let hit = |s: &str| s.chars().any(bad);
        match v {
            Value::String(s) if hit(s) => Some((at.to_string(), s.clone())),
            Value::Sequence(items) => items
                .iter()
                .enumerate()
                .find_map(|(i, x)| walk(x, &format!("{at}[{i}]"), bad)),
            Value::Mapping(m) => m.iter().find_map(|(k, x)| {
                let key = match k {
                    Value::String(s) => s.clone(),
                    other => serde_yaml_ng::to_string(other)
                        .unwrap_or_default()
                        .trim_end()
                        .to_string(),
                };
                let field = if at.is_empty() {
                    key.clone()
                } else {
                    format!("{at}.{key}")
                };
                if hit(&key) {
                    return Some((field, key));
                }
                walk(x, &field, bad)
            }),
            Value::Tagged(t) => walk(&t.value, at, bad),
            _ => None,
        }
    }
    let Some((field, s)) = walk(&doc, "", &bad) else {
        return Ok(());
    };
    let (i, c) = s
        .chars()
        .enumerate()
        .find(|(_, c)| bad(*c))
        .expect("walk found one");
    Err(ConfigError::semantic(
        path,
        &field,
        format!(
            "'{}' holds U+{:04X} at character {}: no text in a configuration file may hold a control character (an escape sequence), a bidirectional override or U+FFFE/U+FFFF",
            crate::text::quote_capped(&s),
            c as u32,
            i + 1
        ),
    )
    .located(text))
}

/// `message` with every double-quoted part longer than
/// [`crate::text::QUOTE_CHARS`] characters cut to that many (serde quotes a
/// whole scalar: a file of text given where a mapping is expected would be
/// echoed whole), and made [`crate::text::terminal_safe`].
fn cap_quotes(message: &str) -> String {
    let mut out = String::with_capacity(message.len().min(512));
    let mut rest = message;
    while let Some(open) = rest.find('"') {
        out.push_str(&rest[..=open]);
        let body = &rest[open + 1..];
        // The closing quote: the first one not escaped by a backslash.
        let mut close = None;
        let mut escaped = false;
        for (j, c) in body.char_indices() {
            match c {
                '\\' if !escaped => escaped = true,
                '"' if !escaped => {
                    close = Some(j);
                    break;
                }
                _ => escaped = false,
            }
        }
        let Some(close) = close else {
            rest = body;
            break;
        };
        let quoted = &body[..close];
        let n = quoted.chars().count();
        if n > crate::text::QUOTE_CHARS {
            out.extend(quoted.chars().take(crate::text::QUOTE_CHARS));
            out.push_str(&format!("...\" ({n} characters)"));
        } else {
            out.push_str(quoted);
            out.push('"');
        }
        rest = &body[close + 1..];
    }
    out.push_str(rest);
    crate::text::terminal_safe(&out).into_owned()
}

/// [`parse_yaml`] without the string check and the quote cap.
fn parse_yaml_raw<T: DeserializeOwned>(text: &str, path: &str) -> Result<T, ConfigError> {
    let de = serde_yaml_ng::Deserializer::from_str(text);
    serde_path_to_error::deserialize(de).map_err(|e| {
        let field = e.path().to_string();
        let inner = e.into_inner();
        let (line, column) = inner
            .location()
            .map(|l| (l.line(), l.column()))
            .unwrap_or((0, 0));
        // serde_yaml_ng appends " at line L column C" and prefixes the
        // enclosing path ("nominal.convergence: "); both are reported
        // separately.
        let mut message = inner.to_string();
        if let Some(i) = message.find(" at line ") {
            message.truncate(i);
        }
        while let Some((head, rest)) = message.split_once(": ") {
            if !head.contains(' ') && field.starts_with(head) {
                message = rest.to_string();
            } else {
                break;
            }
        }
        // serde reports a duplicate key at the start of the enclosing map;
        // point at the second occurrence of the key instead.
        let dup = message
            .split("duplicate field `")
            .nth(1)
            .and_then(|r| r.split('`').next())
            .map(|key| match field.as_str() {
                "." | "" => key.to_string(),
                f => format!("{f}.{key}"),
            });
        if let Some(dup_field) = dup {
            if let Some((l, c)) = locate(text, &dup_field, 2) {
                return ConfigError {
                    path: path.into(),
                    line: l,
                    column: c,
                    field: dup_field,
                    message,
                };
            }
        }
        ConfigError {
            path: path.into(),
            line,
            column,
            field,
            message,
        }
    })
}

/// Reads the file at `path` as text.
///
/// # Errors
/// A [`ConfigError`] with an empty field (the whole file) when the file
/// cannot be read.
pub fn read_text(path: &Path) -> Result<String, ConfigError> {
    std::fs::read_to_string(path).map_err(|e| ConfigError {
        path: path.display().to_string(),
        line: 0,
        column: 0,
        field: String::new(),
        message: format!("cannot read: {e}"),
    })
}

/// Reads and parses the YAML file at `path`.
pub fn load_yaml<T: DeserializeOwned>(path: &Path) -> Result<T, ConfigError> {
    parse_yaml(&read_text(path)?, &path.display().to_string())
}

/// Parses YAML `text` (read from `path`) into `T` and runs the semantic
/// checks `check(&value, path)` on it. An error from `check` gets the line
/// and column of its field in `text` ([`ConfigError::located`]), so every
/// error names file, line and field.
pub fn parse_yaml_checked<T: DeserializeOwned>(
    text: &str,
    path: &str,
    check: impl FnOnce(&T, &str) -> Result<(), ConfigError>,
) -> Result<T, ConfigError> {
    let value: T = parse_yaml(text, path)?;
    check(&value, path).map_err(|e| e.located(text))?;
    Ok(value)
}

/// [`parse_yaml_checked`] on the file at `path`.
pub fn load_yaml_checked<T: DeserializeOwned>(
    path: &Path,
    check: impl FnOnce(&T, &str) -> Result<(), ConfigError>,
) -> Result<T, ConfigError> {
    parse_yaml_checked(&read_text(path)?, &path.display().to_string(), check)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde::Deserialize;

    #[derive(Debug, Deserialize)]
    #[serde(deny_unknown_fields)]
    struct Inner {
        radius_m: f64,
    }
    #[derive(Debug, Deserialize)]
    #[serde(deny_unknown_fields)]
    struct Outer {
        #[allow(dead_code)]
        name: String,
        robot: Inner,
    }

    #[test]
    fn unknown_field_names_file_line_and_path() {
        let text = "name: a\nrobot:\n  radius_m: 0.2\n  colour: red\n";
        let e = parse_yaml::<Outer>(text, "w.yaml").unwrap_err();
        assert_eq!(e.path, "w.yaml");
        assert_eq!(e.line, 4);
        assert_eq!(e.field, "robot.colour");
        assert!(
            e.message.contains("unknown field `colour`"),
            "{}",
            e.message
        );
    }

    #[test]
    fn wrong_type_names_the_field() {
        let text = "name: a\nrobot:\n  radius_m: big\n";
        let e = parse_yaml::<Outer>(text, "w.yaml").unwrap_err();
        assert_eq!(e.line, 3);
        assert_eq!(e.field, "robot.radius_m");
        let ok: Outer = parse_yaml("name: a\nrobot:\n  radius_m: 0.25\n", "w.yaml").unwrap();
        assert_eq!(ok.robot.radius_m, 0.25);
    }
    #[test]
    fn locate_finds_keys_elements_and_duplicates() {
        let text = "name: a\nrobot:\n  radius_m: 0.2\naxes:\n  - name: x\n    values: [0.0, 0.5,\n      .nan]\n  - {name: y, values: []}\nrobot:\n  radius_m: 1\n";
        assert_eq!(locate(text, "name", 1), Some((1, 1)));
        assert_eq!(locate(text, "robot.radius_m", 1), Some((3, 3)));
        assert_eq!(locate(text, "axes[0].name", 1), Some((5, 5)));
        assert_eq!(locate(text, "axes[0].values[1]", 1), Some((6, 19)));
        assert_eq!(locate(text, "axes[0].values[2]", 1), Some((7, 7)));
        assert_eq!(locate(text, "axes[1].values", 1), Some((8, 15)));
        assert_eq!(locate(text, "axes[1]", 1), Some((8, 5)));
        // The second `robot:` key and the field under it.
        assert_eq!(locate(text, "robot", 2), Some((9, 1)));
        assert_eq!(locate(text, "robot.radius_m", 2), Some((10, 3)));
        assert_eq!(locate(text, "robot.colour", 1), None);
        assert_eq!(locate(text, "axes[2]", 1), None);
        assert_eq!(locate(text, ".", 1), None);
        // A file that cannot be read names the file, not a field.
        let e = read_text(Path::new("/nonexistent/breakbench.yaml")).unwrap_err();
        assert_eq!(e.field, "");
        assert!(
            e.to_string()
                .starts_with("/nonexistent/breakbench.yaml: cannot read: "),
            "{e}"
        );
        assert_eq!(locate(text, "axes[x]", 1), None);
    }

    #[test]
    fn located_fills_in_semantic_errors_only() {
        let text = "name: a\nrobot:\n  radius_m: -1\n";
        let e = ConfigError::semantic("w.yaml", "robot.radius_m", "must be > 0").located(text);
        assert_eq!((e.line, e.column), (3, 3));
        assert_eq!(
            e.to_string(),
            "w.yaml:3:3: field 'robot.radius_m': must be > 0"
        );
        let e = ConfigError::semantic("w.yaml", "nowhere", "m").located(text);
        assert_eq!((e.line, e.column), (0, 0));
        // An absent key is placed at its enclosing field.
        let e = ConfigError::semantic("w.yaml", "robot.colour", "missing").located(text);
        assert_eq!((e.line, e.column, e.field.as_str()), (2, 1, "robot.colour"));
    }
    #[test]
    fn duplicate_key_points_at_its_second_occurrence() {
        let text = "name: a\nrobot:\n  radius_m: 0.2\n  radius_m: 0.3\n";
        let e = parse_yaml::<Outer>(text, "w.yaml").unwrap_err();
        assert_eq!((e.line, e.column), (4, 3), "{e}");
        assert_eq!(e.field, "robot.radius_m");
        let text = "name: a\nname: b\nrobot: {radius_m: 1}\n";
        let e = parse_yaml::<Outer>(text, "w.yaml").unwrap_err();
        assert_eq!((e.line, e.field.as_str()), (2, "name"), "{e}");
    }

    /// A UTF-8 byte order mark does not shift the reported line: an error
    /// on line 3 of a file with a BOM is reported on line 3, parse errors
    /// and semantic ones alike.
    #[test]
    fn byte_order_mark_does_not_shift_lines() {
        let text = "\u{feff}name: a\nrobot:\n  radius_m: big\n";
        let e = parse_yaml::<Outer>(text, "w.yaml").unwrap_err();
        assert_eq!((e.line, e.field.as_str()), (3, "robot.radius_m"), "{e}");
        let text = "\u{feff}name: a\nrobot:\n  radius_m: -1\n";
        let e = parse_yaml_checked::<Outer>(text, "w.yaml", |_, p| {
            Err(ConfigError::semantic(p, "robot.radius_m", "must be > 0"))
        })
        .unwrap_err();
        assert_eq!(
            e.to_string(),
            "w.yaml:3:3: field 'robot.radius_m': must be > 0"
        );
        let ok: Outer = parse_yaml("\u{feff}name: a\nrobot: {radius_m: 1}\n", "w.yaml").unwrap();
        assert_eq!(ok.robot.radius_m, 1.0);
    }

    /// A control character in any string (here an ANSI escape written as a
    /// YAML escape, and a raw BEL in a key) is refused with file, line and
    /// field; tabs and line feeds in values, and a CRLF file, are accepted.
    #[test]
    fn control_characters_in_strings_are_refused_with_their_field() {
        let text = "name: \"evil\\e[2Jname\"\nrobot:\n  radius_m: 1\n";
        let e = parse_yaml::<Outer>(text, "w.yaml").unwrap_err();
        assert_eq!(
            e.to_string(),
            "w.yaml:1:1: field 'name': 'evil\\u{1b}[2Jname' holds U+001B at character 5: no text in a configuration file may hold a control character (an escape sequence), a bidirectional override or U+FFFE/U+FFFF"
        );
        let text = "name: a\nrobot:\n  radius_m: 1\n  \"co\u{7}lour\": red\n";
        let e = parse_yaml::<serde_yaml_ng::Value>(text, "w.yaml").unwrap_err();
        assert_eq!(
            e.to_string(),
            "w.yaml:4:6: raw control character U+0007: no text in a configuration file may hold one"
        );
        let text = "name: a\nrobot:\n  radius_m: 1\n  \"co\\alour\": red\n";
        let e = parse_yaml::<serde_yaml_ng::Value>(text, "w.yaml").unwrap_err();
        assert_eq!((e.line, e.field.as_str()), (4, "robot.co\u{7}lour"), "{e}");
        let text = "name: \"x\\u202Ey\"\nrobot: {radius_m: 1}\n";
        let e = parse_yaml::<Outer>(text, "w.yaml").unwrap_err();
        assert!(e.message.contains("U+202E"), "{e}");
        for ok in [
            "name: \"tab\\there\\nline\"\nrobot: {radius_m: 1}\n",
            "name: a\r\nrobot:\r\n  radius_m: 1\r\n",
            "# a comment with \\e\nname: \"ünïcode <&>\"\nrobot: {radius_m: 1}\n",
        ] {
            parse_yaml::<Outer>(ok, "w.yaml").unwrap();
        }
    }

    /// A file of text where a mapping is expected (`world: /etc/passwd`) is
    /// not echoed whole: the message quotes at most 40 characters of it.
    #[test]
    fn error_quotes_at_most_a_few_dozen_characters_of_the_file() {
        let passwd: String = (0..40)
            .map(|i| format!("user{i}:x:{i}:{i}:User {i}:/home/user{i}:/bin/sh\n"))
            .collect();
        let e = parse_yaml::<Outer>(&passwd, "/etc/passwd").unwrap_err();
        let text = e.to_string();
        assert!(text.len() < 200, "{} bytes: {text}", text.len());
        assert!(text.contains("user0:x:0:0:User 0"), "{text}");
        assert!(!text.contains("user1:"), "{text}");
        assert!(
            text.contains(&format!("({} characters)", passwd.len() - 1)),
            "{text}"
        );
    }
}
