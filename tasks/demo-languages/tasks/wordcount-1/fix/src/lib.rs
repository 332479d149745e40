//! Word, line and character counts of a text, like `wc`.

/// The counts of one text.
#[derive(Debug, PartialEq, Eq, Clone, Copy)]
pub struct Counts {
    pub lines: usize,
    pub words: usize,
    pub chars: usize,
}

/// Words are runs of characters between whitespace.
pub fn count_words(text: &str) -> usize {
    text.split_whitespace().count()
}

/// Lines are counted by their newline characters, as `wc -l` does.
pub fn count_lines(text: &str) -> usize {
    text.matches('\n').count()
}

pub fn counts(text: &str) -> Counts {
    Counts {
        lines: count_lines(text),
        words: count_words(text),
        chars: text.chars().count(),
    }
}
