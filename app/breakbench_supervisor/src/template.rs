//! Command templates of an external stack (`breakbench campaign --graph-cmd`):
//! a command line with placeholders filled in per run.
//!
//! * Words are split like a POSIX shell does for a simple command: blanks
//!   separate words, `'...'` quotes literally, `"..."` quotes with `\"`,
//!   `\\`, `` \` `` and `\$` escapes, and `\x` outside quotes is `x`. No
//!   other shell syntax is interpreted (no `$VAR`, `;`, `|`, `&&`,
//!   redirections, globs): the words are executed directly. For a shell,
//!   give one: `bash -c 'source install/setup.bash && ros2 launch ...'`.
//! * Placeholders `{name}` anywhere in a word are replaced after the split,
//!   so a value never splits a word: [`PLACEHOLDERS`]. `{{` and `}}` are a
//!   literal `{` and `}`.
//! * An unknown placeholder, an unclosed `{` or quote, a stray `}` or an
//!   empty command is an error naming it, before anything runs.

use std::fmt;

/// The placeholders of a command template and what each expands to.
pub const PLACEHOLDERS: [(&str, &str); 4] = [
    (
        "domain_id",
        "the run's ROS_DOMAIN_ID (also set in the environment)",
    ),
    (
        "seed",
        "the run's seed as a ROS int64 parameter value (the u64 seed's two's-complement bits)",
    ),
    ("run_id", "the run id (the oracle's run_id parameter)"),
    (
        "out",
        "the run's output directory, absolute (the oracle's manifest_dir parameter)",
    ),
];

/// Why a command template was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum TemplateError {
    /// No word at all.
    #[error("empty command")]
    Empty,
    /// `{name}` with a name not in [`PLACEHOLDERS`].
    #[error(
        "unknown placeholder {{{name}}} (known: {known}; write {{{{ and }}}} for literal braces)"
    )]
    UnknownPlaceholder { name: String, known: String },
    /// A `{` without its `}`.
    #[error("unclosed '{{' at byte {at} (write {{{{ for a literal brace)")]
    Unclosed { at: usize },
    /// A `}` without a `{`.
    #[error("stray '}}' at byte {at} (write }}}} for a literal brace)")]
    Stray { at: usize },
    /// A quote without its closing quote.
    #[error("unclosed {quote} quote starting at byte {at}")]
    UnclosedQuote { quote: char, at: usize },
}

/// One piece of a word: literal text or a placeholder (an index into
/// [`PLACEHOLDERS`]).
#[derive(Debug, Clone, PartialEq, Eq)]
enum Piece {
    Text(String),
    Var(usize),
}

/// A parsed command template (see the module docs).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CommandTemplate {
    text: String,
    words: Vec<Vec<Piece>>,
}

/// The values of the placeholders for one run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TemplateVars {
    /// `{domain_id}`.
    pub domain_id: u16,
    /// `{seed}`: the run's u64 seed; expanded as its i64 bits.
    pub seed: u64,
    /// `{run_id}`.
    pub run_id: String,
    /// `{out}`: expanded as given (the executor passes an absolute path).
    pub out: std::path::PathBuf,
}

impl TemplateVars {
    fn value(&self, var: usize) -> String {
        match PLACEHOLDERS[var].0 {
            "domain_id" => self.domain_id.to_string(),
            "seed" => (self.seed as i64).to_string(),
            "run_id" => self.run_id.clone(),
            "out" => self.out.display().to_string(),
            other => unreachable!("placeholder {other} has no value"),
        }
    }
}

/// Splits `text` into words of raw characters, each character tagged with
/// whether it came from an escape or quotes (then braces in it are still
/// placeholders: quoting is about word splitting only) and its byte offset.
fn split(text: &str) -> Result<Vec<Vec<(char, usize)>>, TemplateError> {
    let mut words = Vec::new();
    let mut cur: Option<Vec<(char, usize)>> = None;
    let mut it = text.char_indices().peekable();
    while let Some((i, c)) = it.next() {
        match c {
            ' ' | '\t' | '\n' => {
                if let Some(w) = cur.take() {
                    words.push(w);
                }
            }
            '\'' => {
                let w = cur.get_or_insert_with(Vec::new);
                loop {
                    match it.next() {
                        Some((_, '\'')) => break,
                        Some((j, d)) => w.push((d, j)),
                        None => return Err(TemplateError::UnclosedQuote { quote: '\'', at: i }),
                    }
                }
            }
            '"' => {
                let w = cur.get_or_insert_with(Vec::new);
                loop {
                    match it.next() {
                        Some((_, '"')) => break,
                        Some((j, '\\')) => match it.peek() {
                            Some(&(k, d @ ('"' | '\\' | '`' | '$'))) => {
                                it.next();
                                w.push((d, k));
                            }
                            _ => w.push(('\\', j)),
                        },
                        Some((j, d)) => w.push((d, j)),
                        None => return Err(TemplateError::UnclosedQuote { quote: '"', at: i }),
                    }
                }
            }
            '\\' => {
                let w = cur.get_or_insert_with(Vec::new);
                if let Some((j, d)) = it.next() {
                    w.push((d, j));
                }
            }
            _ => cur.get_or_insert_with(Vec::new).push((c, i)),
        }
    }
    if let Some(w) = cur.take() {
        words.push(w);
    }
    Ok(words)
}

/// The pieces of one split word: `{name}` placeholders, `{{`/`}}` escapes.
fn pieces(word: &[(char, usize)]) -> Result<Vec<Piece>, TemplateError> {
    let mut out = Vec::new();
    let mut text = String::new();
    let mut i = 0;
    while i < word.len() {
        let (c, at) = word[i];
        match c {
            '{' if word.get(i + 1).is_some_and(|n| n.0 == '{') => {
                text.push('{');
                i += 2;
            }
            '}' if word.get(i + 1).is_some_and(|n| n.0 == '}') => {
                text.push('}');
                i += 2;
            }
            '{' => {
                let close = word[i + 1..]
                    .iter()
                    .position(|(d, _)| *d == '}')
                    .ok_or(TemplateError::Unclosed { at })?;
                let name: String = word[i + 1..i + 1 + close].iter().map(|(d, _)| d).collect();
                let var = PLACEHOLDERS
                    .iter()
                    .position(|(n, _)| *n == name)
                    .ok_or_else(|| TemplateError::UnknownPlaceholder {
                        name: name.clone(),
                        known: PLACEHOLDERS
                            .iter()
                            .map(|(n, _)| format!("{{{n}}}"))
                            .collect::<Vec<_>>()
                            .join(", "),
                    })?;
                if !text.is_empty() {
                    out.push(Piece::Text(std::mem::take(&mut text)));
                }
                out.push(Piece::Var(var));
                i += close + 2;
            }
            '}' => return Err(TemplateError::Stray { at }),
            _ => {
                text.push(c);
                i += 1;
            }
        }
    }
    if !text.is_empty() || out.is_empty() {
        out.push(Piece::Text(text));
    }
    Ok(out)
}

impl CommandTemplate {
    /// Parses a command template (see the module docs).
    ///
    /// # Errors
    /// [`TemplateError`] naming the unknown placeholder, the unclosed brace
    /// or quote (byte offset in `text`), or an empty command.
    pub fn parse(text: &str) -> Result<Self, TemplateError> {
        let words = split(text)?
            .iter()
            .map(|w| pieces(w))
            .collect::<Result<Vec<_>, _>>()?;
        if words.is_empty() {
            return Err(TemplateError::Empty);
        }
        Ok(Self {
            text: text.to_string(),
            words,
        })
    }

    /// The command's words with the placeholders filled in from `vars`:
    /// the program first.
    pub fn expand(&self, vars: &TemplateVars) -> Vec<String> {
        self.words
            .iter()
            .map(|w| {
                w.iter()
                    .map(|p| match p {
                        Piece::Text(t) => t.clone(),
                        Piece::Var(v) => vars.value(*v),
                    })
                    .collect()
            })
            .collect()
    }

    /// The program (first word) when it has no placeholder.
    pub fn program(&self) -> Option<&str> {
        match self.words[0].as_slice() {
            [Piece::Text(t)] => Some(t),
            _ => None,
        }
    }

    /// Whether the template uses placeholder `name`.
    pub fn uses(&self, name: &str) -> bool {
        self.words
            .iter()
            .flatten()
            .any(|p| matches!(p, Piece::Var(v) if PLACEHOLDERS[*v].0 == name))
    }
}

impl fmt::Display for CommandTemplate {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.text)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn vars() -> TemplateVars {
        TemplateVars {
            domain_id: 42,
            seed: u64::MAX - 1,
            run_id: "grid-c0001-r00".into(),
            out: "/tmp/x y/run".into(),
        }
    }

    #[test]
    fn expands_every_placeholder_inside_words_without_splitting_values() {
        let t = CommandTemplate::parse(
            "ros2 launch breakbench corridor.launch.py seed:={seed} run_id:={run_id} out_dir:={out} --domain {domain_id}",
        )
        .unwrap();
        assert_eq!(
            t.expand(&vars()),
            [
                "ros2",
                "launch",
                "breakbench",
                "corridor.launch.py",
                "seed:=-2",
                "run_id:=grid-c0001-r00",
                "out_dir:=/tmp/x y/run",
                "--domain",
                "42"
            ]
        );
        assert_eq!(t.program(), Some("ros2"));
        assert!(t.uses("out") && t.uses("seed") && !t.uses("run"));
    }

    #[test]
    fn quotes_escapes_and_literal_braces() {
        let t = CommandTemplate::parse(
            r#"bash -c 'echo {run_id} && exit 0' "a \"b\" {seed}" x\ y '{{lit}}' {{}}"#,
        )
        .unwrap();
        assert_eq!(
            t.expand(&vars()),
            [
                "bash",
                "-c",
                "echo grid-c0001-r00 && exit 0",
                "a \"b\" -2",
                "x y",
                "{lit}",
                "{}"
            ]
        );
        assert_eq!(t.to_string().split_whitespace().next(), Some("bash"));
    }

    #[test]
    fn unknown_placeholder_is_named() {
        let e = CommandTemplate::parse("ros2 launch x seed:={sed}").unwrap_err();
        assert_eq!(
            e,
            TemplateError::UnknownPlaceholder {
                name: "sed".into(),
                known: "{domain_id}, {seed}, {run_id}, {out}".into()
            }
        );
        assert!(e.to_string().contains("unknown placeholder {sed}"), "{e}");
    }

    #[test]
    fn malformed_templates_are_refused_with_the_position() {
        assert_eq!(CommandTemplate::parse("  \t"), Err(TemplateError::Empty));
        assert_eq!(
            CommandTemplate::parse("a {seed"),
            Err(TemplateError::Unclosed { at: 2 })
        );
        assert_eq!(
            CommandTemplate::parse("a seed}"),
            Err(TemplateError::Stray { at: 6 })
        );
        assert_eq!(
            CommandTemplate::parse("a 'b c"),
            Err(TemplateError::UnclosedQuote { quote: '\'', at: 2 })
        );
        assert_eq!(
            CommandTemplate::parse("a \"b"),
            Err(TemplateError::UnclosedQuote { quote: '"', at: 2 })
        );
        let e = CommandTemplate::parse("x {}").unwrap_err();
        assert!(
            matches!(&e, TemplateError::UnknownPlaceholder { name, .. } if name.is_empty()),
            "{e:?}"
        );
    }

    #[test]
    fn a_placeholder_program_has_no_fixed_program() {
        let t = CommandTemplate::parse("{out}/run.sh").unwrap();
        assert_eq!(t.program(), None);
        assert_eq!(t.expand(&vars()), ["/tmp/x y/run/run.sh"]);
    }
}
