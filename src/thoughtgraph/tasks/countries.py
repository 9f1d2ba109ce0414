"""Country names and counting them in a text: the code check behind keyword counting.

The names are the sovereign states (UN members plus a few widely recognised others), as the
paper's `countries` dataset counts them: `Scotland` or `England` are not counted, and the
`Ireland` in `Northern Ireland` counts as Ireland. With these rules the counts reproduce the
dataset's ground truth on all 100 samples (tested). Matching is case-sensitive and whole-word;
the longest name wins (`South Sudan` is not also a `Sudan`).
"""

from __future__ import annotations

import re
from collections import Counter
from functools import lru_cache

_NAMES = """
Afghanistan, Albania, Algeria, Andorra, Angola, Antigua and Barbuda, Argentina, Armenia, Australia,
Austria, Azerbaijan, Bahamas, Bahrain, Bangladesh, Barbados, Belarus, Belgium, Belize, Benin,
Bhutan, Bolivia, Bosnia and Herzegovina, Botswana, Brazil, Brunei, Bulgaria, Burkina Faso, Burundi,
Cambodia, Cameroon, Canada, Cape Verde, Central African Republic, Chad, Chile, China, Colombia,
Comoros, Costa Rica, Croatia, Cuba, Cyprus, Czech Republic, Czechia, Denmark, Djibouti, Dominica,
Dominican Republic, East Timor, Ecuador, Egypt, El Salvador, Equatorial Guinea, Eritrea, Estonia,
Eswatini, Ethiopia, Fiji, Finland, France, Gabon, Gambia, Georgia, Germany, Ghana, Greece, Grenada,
Guatemala, Guinea, Guinea-Bissau, Guyana, Haiti, Honduras, Hungary, Iceland, India, Indonesia,
Iran, Iraq, Ireland, Israel, Italy, Ivory Coast, Jamaica, Japan, Jordan, Kazakhstan, Kenya,
Kiribati, Kosovo, Kuwait, Kyrgyzstan, Laos, Latvia, Lebanon, Lesotho, Liberia, Libya,
Liechtenstein, Lithuania, Luxembourg, Madagascar, Malawi, Malaysia, Maldives, Mali, Malta,
Marshall Islands, Mauritania, Mauritius, Mexico, Micronesia, Moldova, Monaco, Mongolia, Montenegro,
Morocco, Mozambique, Myanmar, Namibia, Nauru, Nepal, Netherlands, New Zealand, Nicaragua, Niger,
Nigeria, North Korea, North Macedonia, Norway, Oman, Pakistan, Palau, Palestine, Panama,
Papua New Guinea, Paraguay, Peru, Philippines, Poland, Portugal, Qatar, Romania, Russia, Rwanda,
Saint Kitts and Nevis, Saint Lucia, Saint Vincent and the Grenadines, Samoa, San Marino,
Sao Tome and Principe, Saudi Arabia, Senegal, Serbia, Seychelles, Sierra Leone, Singapore,
Slovakia, Slovenia, Solomon Islands, Somalia, South Africa, South Korea, South Sudan, Spain,
Sri Lanka, Sudan, Suriname, Sweden, Switzerland, Syria, Taiwan, Tajikistan, Tanzania, Thailand,
Togo, Tonga, Trinidad and Tobago, Tunisia, Turkey, Turkmenistan, Tuvalu, Uganda, Ukraine,
United Arab Emirates, United Kingdom, United States, Uruguay, Uzbekistan, Vanuatu, Vatican City,
Venezuela, Vietnam, Yemen, Zambia, Zimbabwe
"""

COUNTRIES: tuple[str, ...] = tuple(
    n.strip() for n in _NAMES.replace("\n", " ").split(",") if n.strip()
)
_BY_LOWER = {name.lower(): name for name in COUNTRIES}
_PATTERN = re.compile(
    r"(?<![\w-])("
    + "|".join(re.escape(n) for n in sorted(COUNTRIES, key=len, reverse=True))
    + r")(?![\w-])"
)


@lru_cache(maxsize=4096)
def _counts(text: str) -> tuple[tuple[str, int], ...]:
    return tuple(Counter(_PATTERN.findall(text)).items())


def count_countries(text: str) -> dict[str, int]:
    """How often each country is named in `text`, in order of first mention."""
    return dict(_counts(text))


def as_written(name: str) -> str:
    """A key as the model wrote it: surrounding quotes and spaces aside, inner spaces as one."""
    return re.sub(r"\s+", " ", name.strip().strip("\"'").strip())


def canonical(name: str) -> str:
    """A model's spelling of a country -> ours when we know it (case, a leading "the")."""
    key = re.sub(r"(?i)^the ", "", as_written(name))
    return _BY_LOWER.get(key.lower(), key)


def folded(counts: dict[str, int]) -> dict[str, int]:
    """Counts under our spelling of each country (`canonical`), a country written two ways
    added up: what a score compares with the text's counts. The answer itself keeps the
    model's spelling (`{"peru": 2}` is what the reply says). A count of 0 names nothing:
    `{"Peru": 2, "Chile": 0}` says what `{"Peru": 2}` says."""
    total: dict[str, int] = {}
    for name, count in counts.items():
        key = canonical(name)
        total[key] = total.get(key, 0) + count
    return {key: count for key, count in total.items() if count}
