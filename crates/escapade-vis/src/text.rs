//! Small text helpers shared by feedback and descriptions.

/// `text` in backquotes, cut to `max` characters, with control characters removed, so
/// that echoing a model's reply back can never flood an observation.
pub fn quote(text: &str, max: usize) -> String {
    let clean: String = text.chars().filter(|c| !c.is_control()).collect();
    format!(
        "`{}`",
        escapade_core::action::truncate_chars(clean.trim(), max)
    )
}

/// `a, b and c`.
pub fn list(items: &[String]) -> String {
    match items {
        [] => String::new(),
        [one] => one.clone(),
        [init @ .., last] => format!("{} and {last}", init.join(", ")),
    }
}
