//! The README's "Modes × channel types" table lists exactly the modes of
//! `kraken_interfaces::MODES`, in constant order, as `name (value)`.

#[test]
fn readme_mode_table_rows_are_the_mode_table() {
    let text = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/README.md"))
        .expect("README.md");
    let start = text
        .find("## Modes × channel types")
        .expect("README section 'Modes × channel types'");
    let rows: Vec<String> = text[start..]
        .lines()
        .skip_while(|l| !l.starts_with("| mode |"))
        .skip(2)
        .take_while(|l| l.starts_with('|'))
        .map(|l| l.split('|').nth(1).unwrap_or("").trim().to_string())
        .collect();
    let want: Vec<String> = kraken_interfaces::MODES
        .iter()
        .map(|m| format!("{} ({})", m.name, m.mode))
        .collect();
    assert_eq!(rows, want);
}
