//! Text that came from user input, made safe to print and to quote
//! (REQ-OUTPUT-SAFE-TEXT, `docs/requirements.md`).
//!
//! * [`unsafe_char`]: the characters no name in a configuration file may
//!   hold (control characters, bidirectional overrides, the XML-invalid
//!   non-characters), refused at load by [`crate::config`];
//! * [`terminal_safe`]: a string with those characters escaped (`\u{1b}`),
//!   for everything printed to a terminal or a log;
//! * [`quote_capped`]: at most [`QUOTE_CHARS`] characters of a value, escaped,
//!   for error messages that quote a file's content;
//! * [`error_chain`]: an error and its causes on one line, each cause once
//!   (how every binary prints an error);
//! * [`log_colour`]: whether log lines on stderr may carry ANSI colour, by
//!   ROS 2's `RCUTILS_COLORIZED_OUTPUT` convention (REQ-LOG-COLOUR).

use std::borrow::Cow;

/// Most characters of a value an error message quotes ([`quote_capped`]).
pub const QUOTE_CHARS: usize = 40;

/// True for a character that must not reach a terminal, a log line or an
/// XML/HTML output raw: every Unicode control character (C0 including tab,
/// line feed and carriage return, DEL, C1), the bidirectional embedding,
/// override and isolate controls (U+202A..U+202E, U+2066..U+2069: they
/// reorder what a terminal shows) and the non-characters U+FFFE and U+FFFF
/// (not XML 1.0 characters).
pub fn unsafe_char(c: char) -> bool {
    c.is_control()
        || matches!(c, '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}' | '\u{fffe}' | '\u{ffff}')
}

/// `s` with every [`unsafe_char`] except line feed and tab written as its
/// Rust escape (`\u{1b}`), so that printing it cannot move the cursor,
/// recolour or retitle a terminal, or reorder the text around it.
/// Borrowed (no copy) when there is nothing to escape.
pub fn terminal_safe(s: &str) -> Cow<'_, str> {
    let bad = |c: char| unsafe_char(c) && c != '\n' && c != '\t';
    if !s.chars().any(bad) {
        return Cow::Borrowed(s);
    }
    let mut o = String::with_capacity(s.len() + 8);
    for c in s.chars() {
        if bad(c) {
            o.push_str(&format!("\\u{{{:x}}}", c as u32));
        } else {
            o.push(c);
        }
    }
    Cow::Owned(o)
}

/// At most [`QUOTE_CHARS`] characters of `s`, every [`unsafe_char`]
/// (line feeds included) escaped, and `... (N characters)` when it was cut:
/// what an error message may quote of a value or a file's content.
pub fn quote_capped(s: &str) -> String {
    let n = s.chars().count();
    let head: String = s.chars().take(QUOTE_CHARS).collect();
    let mut o = String::with_capacity(head.len() + 24);
    for c in head.chars() {
        if unsafe_char(c) {
            o.push_str(&c.escape_default().to_string());
        } else {
            o.push(c);
        }
    }
    if n > QUOTE_CHARS {
        o.push_str(&format!("... ({n} characters)"));
    }
    o
}

/// `e` and its causes ([`std::error::Error::source`]) joined by `": "`, each
/// cause once: a cause whose text already ends the message (an error type
/// that writes its source into its own text, `path: No such file or
/// directory (os error 2)`, and also returns it as `source`) is not
/// appended again. Made [`terminal_safe`]. Every binary prints its fatal
/// error with it.
pub fn error_chain(e: &(dyn std::error::Error + 'static)) -> String {
    let mut msg = e.to_string();
    let mut cause = e.source();
    while let Some(c) = cause {
        let t = c.to_string();
        if !t.is_empty() && !msg.ends_with(&t) {
            msg.push_str(": ");
            msg.push_str(&t);
        }
        cause = c.source();
    }
    terminal_safe(&msg).into_owned()
}

/// ROS 2's switch for coloured console output (rcutils): `0` forces colour
/// off, `1` forces it on; unset (or any other value) leaves the choice to
/// whether the stream is a terminal.
pub const COLOUR_ENV: &str = "RCUTILS_COLORIZED_OUTPUT";

/// Whether log lines may carry ANSI colour codes: `env` is the value of
/// [`COLOUR_ENV`] (`Some("0")` off, `Some("1")` on), otherwise `terminal`
/// (the stream is a terminal). A pipe, a file, a CI log or `ros2 launch`'s
/// log gets none.
pub fn colour_for(env: Option<&str>, terminal: bool) -> bool {
    match env.map(str::trim) {
        Some("0") => false,
        Some("1") => true,
        _ => terminal,
    }
}

/// [`colour_for`] of this process' stderr and environment: what every
/// binary's log setup passes to its formatter.
pub fn log_colour() -> bool {
    use std::io::IsTerminal;
    colour_for(
        std::env::var(COLOUR_ENV).ok().as_deref(),
        std::io::stderr().is_terminal(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Debug)]
    struct Wraps(std::io::Error);
    impl std::fmt::Display for Wraps {
        fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            write!(f, "/nowhere/x.yaml: {}", self.0)
        }
    }
    impl std::error::Error for Wraps {
        fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
            Some(&self.0)
        }
    }

    #[test]
    fn error_chain_prints_each_os_error_once() {
        let e = Wraps(std::io::Error::from_raw_os_error(2));
        assert_eq!(
            error_chain(&e),
            "/nowhere/x.yaml: No such file or directory (os error 2)"
        );
    }

    #[test]
    fn terminal_safe_escapes_control_sequences_only() {
        assert_eq!(terminal_safe("plain ü <&>"), "plain ü <&>");
        assert!(matches!(terminal_safe("plain"), Cow::Borrowed(_)));
        assert_eq!(
            terminal_safe("a\u{1b}[31mred\u{7}\u{9b}\u{202e}x\ny\tz\r"),
            "a\\u{1b}[31mred\\u{7}\\u{9b}\\u{202e}x\ny\tz\\u{d}"
        );
    }

    #[test]
    fn quote_capped_cuts_and_escapes() {
        let passwd =
            "root:x:0:0:root:/root:/bin/bash\ndaemon:x:1:1:daemon:/usr/sbin:/usr/sbin/nologin\n";
        let q = quote_capped(passwd);
        assert_eq!(
            q,
            "root:x:0:0:root:/root:/bin/bash\\ndaemon:x... (80 characters)"
        );
        assert_eq!(quote_capped("short\u{1b}"), "short\\u{1b}");
    }

    #[test]
    fn colour_follows_rcutils_then_the_terminal() {
        assert!(!colour_for(None, false));
        assert!(colour_for(None, true));
        assert!(!colour_for(Some("0"), true));
        assert!(colour_for(Some("1"), false));
        assert!(!colour_for(Some("yes"), false));
        assert!(colour_for(Some(""), true));
    }
}
