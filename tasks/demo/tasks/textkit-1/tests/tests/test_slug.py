from textkit import slugify


def test_single_word():
    assert slugify("Hello") == "hello"


def test_two_words():
    assert slugify("Hello World") == "hello-world"


def test_accents_are_folded():
    assert slugify("Crème Brûlée") == "creme-brulee"


def test_custom_separator():
    assert slugify("a b c", separator="_") == "a_b_c"


def test_punctuation_does_not_double_separators():
    assert slugify("Hello, World!") == "hello-world"


def test_runs_of_spaces_collapse():
    assert slugify("  many   spaces  here ") == "many-spaces-here"
