use wordcount::{count_lines, count_words, counts, Counts};

#[test]
fn words_in_a_simple_sentence() {
    assert_eq!(count_words("the quick brown fox"), 4);
}

#[test]
fn empty_text_has_no_words() {
    assert_eq!(count_words(""), 0);
}

#[test]
fn lines_are_newlines() {
    assert_eq!(count_lines("a\nb\n"), 2);
}

#[test]
fn chars_count_unicode_scalars() {
    assert_eq!(counts("héllo").chars, 5);
}

#[test]
fn counts_of_one_line() {
    assert_eq!(counts("one two\n"), Counts { lines: 1, words: 2, chars: 8 });
}

#[test]
fn repeated_spaces_do_not_make_words() {
    assert_eq!(count_words("one  two   three"), 3);
}

#[test]
fn tabs_and_newlines_separate_words() {
    assert_eq!(count_words("one\ttwo\nthree"), 3);
}

#[test]
fn whitespace_only_text_has_no_words() {
    assert_eq!(count_words(" \n\t "), 0);
}
