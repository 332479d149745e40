def truncate(text, length, ellipsis="..."):
    """Shorten `text` to at most `length` characters.

    When the text has to be cut, the result ends with `ellipsis` and is still no longer than
    `length` characters in total.
    """
    if length < 0:
        raise ValueError("length must not be negative")
    if len(text) <= length:
        return text
    return text[:length] + ellipsis
