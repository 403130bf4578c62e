//! Strict YAML loading shared by every Breakbench configuration file.
//!
//! Every config struct uses `#[serde(deny_unknown_fields)]`; this module turns
//! any parse failure into an error that names the file, the line and column,
//! and the field path (`robot.footprint_radius_m`), as a user needs to fix it.

use std::path::Path;

use serde::de::DeserializeOwned;

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
    /// when the line is unknown (checks made after parsing).
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.line > 0 {
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
}

/// Parses YAML `text` (read from `path`) into `T`, reporting line, column and
/// field path on failure.
pub fn parse_yaml<T: DeserializeOwned>(text: &str, path: &str) -> Result<T, ConfigError> {
    let de = serde_yaml_ng::Deserializer::from_str(text);
    serde_path_to_error::deserialize(de).map_err(|e| {
        let field = e.path().to_string();
        let inner = e.into_inner();
        let (line, column) = inner
            .location()
            .map(|l| (l.line(), l.column()))
            .unwrap_or((0, 0));
        // serde_yaml_ng appends " at line L column C"; we report it separately.
        let mut message = inner.to_string();
        if let Some(i) = message.find(" at line ") {
            message.truncate(i);
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

/// Reads and parses the YAML file at `path`.
pub fn load_yaml<T: DeserializeOwned>(path: &Path) -> Result<T, ConfigError> {
    let p = path.display().to_string();
    let text = std::fs::read_to_string(path).map_err(|e| ConfigError {
        path: p.clone(),
        line: 0,
        column: 0,
        field: ".".into(),
        message: format!("cannot read: {e}"),
    })?;
    parse_yaml(&text, &p)
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
}
