//! The one error type of breakbench_msgs.

use std::path::PathBuf;

/// Errors of parsing definitions, resolving types, encoding/decoding CDR and
/// resolving field paths. Every message names what it is about: the file and
/// line of a definition, the type, the field or the path.
#[derive(Debug, thiserror::Error)]
pub enum MsgError {
    /// A `.msg` line could not be parsed (REQ-MSG-DEF).
    #[error("{source_name}:{line}: {reason}")]
    Parse {
        /// The file (or built-in name) the definition came from.
        source_name: String,
        /// 1-based line number.
        line: usize,
        /// What is wrong, naming the field or constant.
        reason: String,
    },

    /// A definition file or directory could not be read.
    #[error("{}: {source}", path.display())]
    Io {
        /// The file or directory.
        path: PathBuf,
        /// The cause.
        #[source]
        source: std::io::Error,
    },

    /// A type name is not of the form `pkg/Type` or `pkg/msg/Type`.
    #[error("'{name}' is not a message type name (want pkg/msg/Type or pkg/Type)")]
    BadTypeName {
        /// The name as given.
        name: String,
    },

    /// The registry has no definition of this type.
    #[error("unknown message type '{name}' (not built in and not found on AMENT_PREFIX_PATH)")]
    UnknownType {
        /// The type asked for.
        name: String,
    },

    /// A nested type that a field needs is missing (or the types nest in a
    /// cycle).
    #[error("{ty} field '{field}' needs {missing}: {why}")]
    MissingNested {
        /// The type that has the field.
        ty: String,
        /// The field.
        field: String,
        /// The type it needs.
        missing: String,
        /// "unknown type", "types nest in a cycle", or why its definition
        /// file was skipped.
        why: String,
    },

    /// The type's only definition is in a `.msg` file that was skipped
    /// because it does not parse or cannot be read
    /// ([`crate::TypeRegistry::skipped`]).
    #[error(
        "message type '{name}' has no usable definition: its file was skipped (broken): {reason}"
    )]
    Skipped {
        /// The type asked for.
        name: String,
        /// The skipped file's error (file, line, field).
        reason: String,
    },

    /// CDR bytes could not be decoded as the type, or a value could not be
    /// encoded as it (REQ-MSG-CDR).
    #[error("CDR {op} of {ty}: {source}")]
    Cdr {
        /// "decode" or "encode".
        op: &'static str,
        /// The type.
        ty: String,
        /// The cause; bound violations and value/type mismatches are
        /// [`cdr_encoding::Error::Message`] naming the field.
        #[source]
        source: cdr_encoding::Error,
    },

    /// The bytes do not start with a CDR encapsulation header this codec
    /// reads (CDR_LE `00 01` or CDR_BE `00 00`).
    #[error("CDR decode of {ty}: {reason}")]
    Encapsulation {
        /// The type.
        ty: String,
        /// What is wrong.
        reason: String,
    },

    /// A field path is malformed or does not exist in the type (REQ-MSG-PATH).
    #[error("path '{path}': {reason}")]
    Path {
        /// The path as written.
        path: String,
        /// What is wrong, naming the segment and the type.
        reason: String,
    },
}
