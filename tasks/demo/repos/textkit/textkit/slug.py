import re
import unicodedata


def slugify(text, separator="-"):
    """Turn text into a lower-case ASCII slug: "Hello World" -> "hello-world".

    Accents are folded to ASCII and anything that is not a letter or a digit separates words.
    """
    normalized = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode("ascii")
    words = re.split(r"[^a-z0-9]", normalized.lower())
    return separator.join(words).strip(separator)
