"""Numbers as the video's language writes and says them (plain Python, no manim).

Written: the digits are Python's (the same rounding in every language), then Babel's decimal sign,
grouping and percent pattern of the locale: ``1.25`` is ``1,25`` in German, French and Spanish.
Spoken: ``num2words`` per language (Chinese, which num2words lacks, by :func:`zh_number`).
English is one language among the five: where the house style departs from Babel or num2words, the
departure is a row of a table here (:data:`SAID_AS`, :data:`HOUSE_GROUPING`), never a branch.

>>> from scenes.kit.i18n import in_language
>>> with in_language("de"):
...     written("−1234.50"), percent_text("50.35"), spoken(-0.25, 2), spoken_ordinal(3)
('−1.234,50', '50,35\\xa0%', 'minus null Komma zwei fünf', 'dritte')
>>> spoken_int(3072, "en"), written("1234.50", "en", grouped=house_grouping("en"))
('three thousand seventy-two', '1234.50')
>>> with in_language("zh"):
...     spoken(61.6, 1), spoken_ordinal(3), spoken_int(768)
('六十一点六', '第三', '七百六十八')
"""

from __future__ import annotations

from functools import cache

from babel import Locale
from babel.numbers import format_decimal
from num2words import num2words

from .i18n import language, locale_name

SPOKEN_LANG = {"en": "en", "de": "de", "fr": "fr", "es": "es"}  # --lang -> num2words' language (zh: zh_number)
POINT = {"en": "point", "de": "Komma", "fr": "virgule", "es": "coma"}  # the spoken decimal sign
MINUS = {"en": "minus", "de": "minus", "fr": "moins", "es": "menos", "zh": "负"}  # the spoken minus sign
SAID_AS = {  # --lang -> (num2words' words, the narration's words): the house's spoken style where it differs
    "en": ((",", ""), (" and ", " ")),  # 'seven hundred and sixty-eight, ...' -> 'seven hundred sixty-eight ...'
}
HOUSE_GROUPING = {"en": False}  # does the house format (fmt, pct) group thousands? English writes 1234.50
ZH_DIGITS = "零一二三四五六七八九"
ZH_UNITS = ("", "十", "百", "千")


@cache
def _locale(code: str) -> Locale:
    return Locale.parse(locale_name(code))


def decimal_sign(code: str | None = None) -> str:
    """The locale's decimal sign: '.' in English and Chinese, ',' in German, French and Spanish."""
    return _locale(code or language()).number_symbols["latn"]["decimal"]


def list_separator(code: str | None = None) -> str:
    """What separates a vector's entries: ', ', or '; ' where the decimal sign is a comma."""
    return "; " if decimal_sign(code) == "," else ", "


def house_grouping(code: str | None = None) -> bool:
    """Whether the house format (a decimal, a percentage) groups its thousands in this language."""
    return HOUSE_GROUPING.get(code or language(), True)


def written(text: str, code: str | None = None, grouped: bool = True) -> str:
    """A number Python formatted ('−1234.50', a true minus allowed) in the locale's signs and grouping
    (``grouped=False``: the locale's decimal sign only)."""
    code = code or language()
    sign = text[0] if text[:1] in ("-", "\u2212") else ""
    whole, _, frac = text[len(sign):].partition(".")
    if not whole.isdigit():
        return text
    digits = format_decimal(int(whole), locale=_locale(code)) if grouped else whole
    return sign + digits + (decimal_sign(code) + frac if frac else "")


def percent_text(number: str, code: str | None = None, grouped: bool = True) -> str:
    """A percentage Python formatted ('50.35', already times 100) in the locale's percent pattern."""
    code = code or language()
    pattern = _locale(code).percent_formats[None].pattern  # '#,##0\xa0%' (de), '#,##0%' (zh), '#,##0%' (en)
    body = pattern.split(";")[0]
    start, end = body.find("#"), body.rfind("0") + 1
    return body[:start] + written(number, code, grouped) + body[end:]


def zh_int(n: int) -> str:
    """A whole number in Chinese words: 768 -> 七百六十八, 10 -> 十, 3072 -> 三千零七十二."""
    n = int(n)
    if n < 0:
        return "负" + zh_int(-n)
    if n < 10:
        return ZH_DIGITS[n]
    for size, name in ((10**8, "亿"), (10**4, "万")):
        if n >= size:
            head, rest = divmod(n, size)
            words = zh_int(rest) if rest else ""
            words = "一" + words if words.startswith("十") else words
            tail = ("零" if 0 < rest < size // 10 else "") + words
            return zh_int(head) + name + tail
    words, zero = "", False
    for place in range(3, -1, -1):
        digit = n // 10**place % 10
        if digit == 0:
            zero = bool(words)
            continue
        words += ("零" if zero else "") + ZH_DIGITS[digit] + ZH_UNITS[place]
        zero = False
    return words[1:] if words.startswith("一十") else words


def zh_number(value: float, places: int) -> str:
    """A decimal in Chinese words, rounded to ``places``: -0.25 -> 负零点二五."""
    text = f"{float(value):.{places}f}".rstrip("0").rstrip(".") if places else f"{float(value):.0f}"
    sign = "负" if text.startswith("-") and float(text) != 0 else ""
    whole, _, frac = text.lstrip("-").partition(".")
    return sign + zh_int(int(whole)) + ("点" + "".join(ZH_DIGITS[int(d)] for d in frac) if frac else "")


def spoken(value: float, places: int = 2, code: str | None = None) -> str:
    """A decimal as the language says it, rounded to ``places`` (the same digits as written)."""
    code = code or language()
    if code == "zh":
        return zh_number(value, places)
    text = f"{float(value):.{places}f}"
    if float(text) == 0:
        text = text.lstrip("-")
    sign = text.startswith("-")
    whole, _, frac = text.lstrip("-").partition(".")
    frac = frac.rstrip("0")
    words = spoken_int(int(whole), code)
    if frac:
        words += f" {POINT[code]} " + " ".join(spoken_int(int(d), code) for d in frac)
    return (MINUS[code] + " " if sign else "") + words


def house_words(words: str, code: str) -> str:
    """num2words' ``words`` in the house's spoken style of ``code`` (its :data:`SAID_AS` row)."""
    for said, house in SAID_AS.get(code, ()):
        words = words.replace(said, house)
    return words


def spoken_int(n: int, code: str | None = None) -> str:
    """A whole number in words: 768 -> 'seven hundred sixty-eight', 'siebenhundertachtundsechzig'."""
    code = code or language()
    if code == "zh":
        return zh_int(n)
    return house_words(num2words(int(n), lang=SPOKEN_LANG[code]), code)


def spoken_ordinal(n: int, code: str | None = None) -> str:
    """An ordinal in words: 3 -> 'third', 'dritte', 'troisième', 'tercero', '第三'."""
    code = code or language()
    if code == "zh":
        return "第" + zh_int(n)
    return house_words(num2words(int(n), lang=SPOKEN_LANG[code], to="ordinal"), code)
