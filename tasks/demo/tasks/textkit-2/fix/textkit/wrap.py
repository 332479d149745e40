def wrap(text, width):
    """Greedy word wrap.

    Returns the list of lines, each at most `width` characters long unless a single word is
    longer than `width` (such a word gets a line of its own).
    """
    if width < 1:
        raise ValueError("width must be at least 1")
    lines = []
    current = ""
    for word in text.split():
        if not current:
            current = word
        elif len(current) + 1 + len(word) <= width:
            current += " " + word
        else:
            lines.append(current)
            current = word
    if current:
        lines.append(current)
    return lines
