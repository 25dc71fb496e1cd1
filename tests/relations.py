"""A ledger reader's attack on the deck: relations between ciphertexts under the group's operation.

A shuffle step that raises every card to one key e keeps every relation of
the encodings under the group's operation (a product mod p, or a sum of
curve points): if m_a * m_b = m_c then c_a * c_b = c_c, where c = m^e. Whoever sees such a step's output (the next shuffler, the relay, any
reader of the ledger) can match the relations among ciphertexts against the
relations among the public encodings and name the cards they stand for.

:func:`name_positions` is that analysis: it collects products, quotients,
product collisions and small powers inside each set, plus direct hits (a small
power or a product of ciphertexts that *is* an encoding), then runs colour
refinement (1-dimensional Weisfeiler-Leman) over both relation structures
together. A ciphertext whose colour class holds exactly one ciphertext and
one encoding is named. It is the attack an independent adversary used to name
33 of 52 positions when cards were (i + 2)^2.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence

from tabletop.crypto import Group

SMALL_POWERS = (2, 3, 4, 5)

Relation = tuple  # ("mul", a, b, c) | ("coll", a, b, c, d) | ("pow", k, a, b), members are node ids


def relations(elements: Sequence[int], group: Group, offset: int = 0) -> list[Relation]:
    """Every a*b = c, a*b = c*d and a^k = b among ``elements`` (node ids start at ``offset``)."""
    index = {x: offset + i for i, x in enumerate(elements)}
    found: list[Relation] = []
    products: dict[int, list[tuple[int, int]]] = defaultdict(list)
    for i, x in enumerate(elements):
        for j in range(i, len(elements)):
            product = group.multiply(x, elements[j])
            pair = (offset + i, offset + j)
            products[product].append(pair)
            if product in index:
                found.append(("mul", *pair, index[product]))
    for pairs in products.values():
        for k, first in enumerate(pairs):
            found.extend(("coll", *first, *second) for second in pairs[k + 1:])
    for i, x in enumerate(elements):
        for k in SMALL_POWERS[1:]:  # squares are products already
            power = group.power(x, k)
            if power in index:
                found.append(("pow", k, offset + i, index[power]))
    return found


def direct_hits(ciphertexts: Sequence[int], encodings: Sequence[int], group: Group) -> dict[int, int]:
    """Ciphertext position -> card, where a small power of a ciphertext is an encoding."""
    known = {m: i for i, m in enumerate(encodings)}
    hits = {}
    for pos, c in enumerate(ciphertexts):
        for k in (1, *SMALL_POWERS):
            card = known.get(group.power(c, k))
            if card is not None:
                hits[pos] = card
    return hits


def cross_products(ciphertexts: Sequence[int], encodings: Sequence[int], group: Group) -> int:
    """How many products of two ciphertexts are encodings (any is a leak)."""
    known = set(encodings)
    return sum(group.multiply(ciphertexts[i], ciphertexts[j]) in known
               for i in range(len(ciphertexts)) for j in range(i, len(ciphertexts)))


def _refine(nodes: int, edges: list[Relation]) -> list[int]:
    """Colour refinement over typed hyperedges; colours are comparable across every node given."""
    member_of: dict[int, list[Relation]] = defaultdict(list)
    for edge in edges:
        for node in set(_members(edge)):
            member_of[node].append(edge)
    colour = [0] * nodes
    classes = 1
    while True:
        signatures = []
        for node in range(nodes):
            seen = sorted(_signature(edge, node, colour) for edge in member_of[node])
            signatures.append((colour[node], tuple(seen)))
        palette = {s: i for i, s in enumerate(sorted(set(signatures)))}
        colour = [palette[s] for s in signatures]
        if len(palette) == classes:
            return colour
        classes = len(palette)


def _members(edge: Relation) -> tuple[int, ...]:
    return edge[2:] if edge[0] == "pow" else edge[1:]


def _signature(edge: Relation, node: int, colour: list[int]) -> tuple:
    kind = edge[0]
    if kind == "mul":
        a, b, c = edge[1:]
        factors = tuple(sorted((colour[a], colour[b])))
        roles = ("factor" if node in (a, b) else "", "product" if node == c else "")
        return (kind, roles, factors, colour[c])
    if kind == "coll":
        left, right = sorted([tuple(sorted((colour[edge[1]], colour[edge[2]]))),
                              tuple(sorted((colour[edge[3]], colour[edge[4]])))])
        mine = tuple(sorted(colour[m] for m in edge[1:] if m != node))
        return (kind, left, right, mine)
    k, a, b = edge[1:]
    return (kind, k, "base" if node == a else "power", colour[a], colour[b])


def name_positions(ciphertexts: Sequence[int], encodings: Sequence[int], group: Group) -> dict[int, int]:
    """Position -> card index for every ciphertext the relations single out."""
    n = len(ciphertexts)
    named = direct_hits(ciphertexts, encodings, group)
    edges = relations(ciphertexts, group) + relations(encodings, group, offset=n)
    colour = _refine(n + len(encodings), edges)
    groups: dict[int, tuple[list[int], list[int]]] = defaultdict(lambda: ([], []))
    for node, c in enumerate(colour):
        groups[c][node >= n].append(node if node < n else node - n)
    for positions, cards in groups.values():
        if len(positions) == 1 and len(cards) == 1:
            named.setdefault(positions[0], cards[0])
    return named


def narrowed(ciphertexts: Sequence[int], encodings: Sequence[int], group: Group) -> int:
    """How many positions the relations narrow to fewer candidates than the whole deck."""
    n = len(ciphertexts)
    edges = relations(ciphertexts, group) + relations(encodings, group, offset=n)
    colour = _refine(n + len(encodings), edges)
    sizes: dict[int, int] = defaultdict(int)
    for node in range(n, n + len(encodings)):
        sizes[colour[node]] += 1
    return sum(sizes[colour[pos]] < len(encodings) for pos in range(n)) + len(direct_hits(ciphertexts, encodings, group))
