from textkit import slugify


def test_single_word():
    assert slugify("Hello") == "hello"


def test_two_words():
    assert slugify("Hello World") == "hello-world"


def test_accents_are_folded():
    assert slugify("Crème Brûlée") == "creme-brulee"


def test_custom_separator():
    assert slugify("a b c", separator="_") == "a_b_c"
