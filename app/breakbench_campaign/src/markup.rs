//! Text made safe for the XML and HTML outputs (JUnit, the report): one
//! escaping rule for both, below every module that writes markup.

use std::fmt::Write as _;

/// Escapes text for XML/HTML attribute and element content: the five
/// markup characters as entities, tab, line feed and carriage return kept,
/// and every other
/// [`kraken_interfaces::text::unsafe_char`] (the characters XML 1.0 cannot
/// hold, DEL and C1 controls, bidirectional overrides) as the visible text
/// `\u{1b}`, so the output is well formed whatever the input
/// (REQ-OUTPUT-SAFE-TEXT).
pub fn xml_escape(s: &str) -> String {
    let mut o = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => o.push_str("&amp;"),
            '<' => o.push_str("&lt;"),
            '>' => o.push_str("&gt;"),
            '"' => o.push_str("&quot;"),
            '\'' => o.push_str("&apos;"),
            '\t' | '\n' | '\r' => o.push(c),
            c if kraken_interfaces::text::unsafe_char(c) => {
                let _ = write!(o, "\\u{{{:x}}}", c as u32);
            }
            c => o.push(c),
        }
    }
    o
}
