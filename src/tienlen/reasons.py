"""Why a move is refused: stable codes with parameters, and one catalogue of their words in
English and Vietnamese that every app (terminal, server, browser) translates from.

A :class:`Reason` is a ``str`` (its English text, so code that prints or compares reasons
keeps working) that also carries its ``code`` and ``params``:

>>> r = reason("not_held", cards="2♥")
>>> str(r), r.code, r.params
('you do not hold 2♥', 'not_held', {'cards': '2♥'})
>>> r.text("vi")
'bạn không có 2♥'

A template names its parameters in braces. ``{name}`` is the value as it is (cards are
written in suit symbols, which need no translation); ``{name:kind}`` is a combination, given
as ``{"kind", "size", "rank", "top"}`` (see :func:`kind_param`) and worded by :data:`KINDS`;
``{name:kinds}`` is a list of kind names worded by :data:`KIND_NAMES` and joined with "or".
The browser reads the same tables (``GET /api/reasons``) and applies the same rules.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from .coded import Coded

__all__ = [
    "KINDS",
    "KIND_NAMES",
    "LANGUAGES",
    "REASONS",
    "Reason",
    "kind_param",
    "kind_words",
    "reason",
    "reason_catalogue",
]

LANGUAGES = ("en", "vi")

#: Every reason code and its template in each language.
REASONS: dict[str, dict[str, str]] = {
    "game_over": {"en": "the game is over", "vi": "ván đã kết thúc"},
    "not_held": {"en": "you do not hold {cards}", "vi": "bạn không có {cards}"},
    "no_cards": {
        "en": "no cards in {text}: write cards (3s 4s 5d) or pass",
        "vi": "không có lá nào trong {text}: hãy ghi các lá (3s 4s 5d) hoặc bỏ lượt",
    },
    "not_combination": {
        "en": "{cards} is not a combination under the {rules} rules",
        "vi": "{cards} không phải một bộ hợp lệ theo luật {rules}",
    },
    "trading_actions": {
        "en": "during trading use offer_trade, accept_trade or pass",
        "vi": "trong lúc đổi bài chỉ được đề nghị đổi, đồng ý hoặc bỏ qua",
    },
    "give_one": {"en": "give exactly 1 card back", "vi": "hãy đưa lại đúng 1 lá"},
    "give_count": {
        "en": "give exactly {count} cards back",
        "vi": "hãy đưa lại đúng {count} lá",
    },
    "debt_one": {
        "en": "give exactly 1 card to pay the card debt",
        "vi": "hãy đưa đúng 1 lá để trả nợ bài",
    },
    "debt_count": {
        "en": "give exactly {count} cards to pay the card debt",
        "vi": "hãy đưa đúng {count} lá để trả nợ bài",
    },
    "debt_in_twos": {"en": "pay the card debt with 2s", "vi": "hãy trả nợ bài bằng heo"},
    "opening_bombs_only": {
        "en": "before the first lead only an opening bomb may be played out of turn",
        "vi": "trước nước đầu tiên chỉ được đánh bom mở đầu ngoài lượt",
    },
    "must_lead": {
        "en": "you lead this pile: play something (passing is not allowed)",
        "vi": "bạn đánh trước vòng này: hãy đánh (không được bỏ lượt)",
    },
    "no_finish_on_two": {
        "en": "you may not go out on a 2",
        "vi": "không được về bằng heo (thối 2)",
    },
    "first_alone": {
        "en": "the first play must be {card} on its own",
        "vi": "nước đầu tiên phải là {card} đánh lẻ",
    },
    "first_include": {
        "en": "the first play must include {card}",
        "vi": "nước đầu tiên phải có {card}",
    },
    "first_kinds": {
        "en": "the first play must be a {kinds:kinds}, not a {kind:kind}",
        "vi": "nước đầu tiên phải là {kinds:kinds}, không phải {kind:kind}",
    },
    "bomb_lead": {"en": "a bomb may not be led", "vi": "không được mở vòng bằng bom"},
    "stacking": {
        "en": "stacking: on your own {what:kind} you may only play a higher {what:kind}, "
        "not a bomb or another kind",
        "vi": "chồng bài: trên {what:kind} của chính bạn chỉ được đánh {what:kind} cao hơn, "
        "không được chặt hay đánh kiểu khác",
    },
    "passed_bombs_only": {
        "en": "you passed this round: only a bomb may be played now",
        "vi": "bạn đã bỏ lượt vòng này: giờ chỉ được chặt",
    },
    "passed_wait": {
        "en": "you passed this round: wait for the next pile",
        "vi": "bạn đã bỏ lượt vòng này: hãy chờ vòng sau",
    },
    "weaker_bomb": {
        "en": "a {new:kind} is a weaker bomb than a {old:kind}",
        "vi": "{new:kind} là bom yếu hơn {old:kind}",
    },
    "unbeatable_single": {
        "en": "nothing beats the single {card}",
        "vi": "không gì chặn được lá {card}",
    },
    "twos_need_bomb": {
        "en": "a {what:kind} of 2s can only be beaten by higher 2s or a bomb that chops it",
        "vi": "{what:kind} heo chỉ chặn được bằng heo cao hơn hoặc bom chặt heo",
    },
    "same_kind": {
        "en": "a {what:kind} can only be beaten by a higher {what:kind}",
        "vi": "{what:kind} chỉ chặn được bằng {what:kind} cao hơn",
    },
    "straight_locked": {
        "en": "the pile is locked by a one-suit straight: only a higher one-suit straight "
        "may follow",
        "vi": "vòng bị khóa bởi sảnh đồng chất: chỉ sảnh đồng chất cao hơn được đánh tiếp",
    },
    "single_same_suit": {
        "en": "a single must be beaten by a higher card of the same suit ({card})",
        "vi": "lá lẻ phải bị chặn bằng lá cao hơn cùng chất ({card})",
    },
    "pair_same_colours": {
        "en": "a pair must be beaten by a pair of the same colours",
        "vi": "đôi phải bị chặn bằng đôi cùng màu",
    },
    "triple_same_suits": {
        "en": "a triple must be beaten by a triple of the same suits",
        "vi": "sám cô phải bị chặn bằng sám cô cùng chất",
    },
    "straight_above": {
        "en": "a straight must be beaten by one that starts above the other's top card",
        "vi": "sảnh phải bị chặn bằng sảnh bắt đầu trên lá cao nhất của sảnh kia",
    },
    "pair_run_same_colours": {
        "en": "a pair run must be beaten by one with the same colours",
        "vi": "đôi thông phải bị chặn bằng đôi thông cùng màu",
    },
    "pair_run_above": {
        "en": "a pair run must be beaten by one that starts above the other's top pair",
        "vi": "đôi thông phải bị chặn bằng đôi thông bắt đầu trên đôi cao nhất của kia",
    },
    "lower": {
        "en": "{card} is lower than {top}: play a higher {what:kind}",
        "vi": "{card} thấp hơn {top}: hãy đánh {what:kind} cao hơn",
    },
    "blue_tie": {
        "en": "{card} (blue back) does not beat {top}",
        "vi": "{card} (lưng xanh) không chặn được {top}",
    },
    "distinct_tie": {
        "en": "a tie must be broken by a higher distinct card",
        "vi": "hòa thì phải có một lá khác cao hơn",
    },
    "tie": {
        "en": "{card} only ties {top}: a tie does not beat",
        "vi": "{card} chỉ hòa {top}: hòa thì không chặn được",
    },
    "no_trade_now": {"en": "no trade can be offered now", "vi": "giờ không thể đề nghị đổi bài"},
    "bad_partner": {
        "en": "seat {seat} cannot be a trading partner",
        "vi": "ghế {seat} không thể đổi bài",
    },
    "trade_counts": {
        "en": "a trade swaps the same number of cards each way",
        "vi": "đổi bài phải đổi cùng số lá mỗi bên",
    },
    "no_offer_to_accept": {
        "en": "there is no trade offer to accept",
        "vi": "không có đề nghị đổi bài nào để đồng ý",
    },
    "no_offer_to_refuse": {
        "en": "there is no trade offer to refuse",
        "vi": "không có đề nghị đổi bài nào để từ chối",
    },
    "asked_not_held": {
        "en": "you do not hold the cards asked for: refuse (pass) instead",
        "vi": "bạn không có các lá được hỏi: hãy từ chối",
    },
    "accept_gives_asked": {
        "en": "to accept the offer, give the cards asked for: {cards}",
        "vi": "muốn đồng ý đổi, hãy đưa đúng các lá được hỏi: {cards}",
    },
    "offer_awaits": {
        "en": "a trade offer awaits your answer: accept or refuse",
        "vi": "một đề nghị đổi bài đang chờ bạn: đồng ý hoặc từ chối",
    },
    "counts_shown": {
        "en": "card counts are shown under these rules: there is nothing to ask",
        "vi": "luật này cho xem số lá của mọi người: không cần hỏi",
    },
    "ask_in_play": {
        "en": "card counts can be asked once play has started",
        "vi": "chỉ được hỏi số lá khi đã bắt đầu đánh",
    },
    "bad_ask": {
        "en": "seat {seat} cannot be asked for its card count",
        "vi": "không thể hỏi số lá của ghế {seat}",
    },
    "wrong_phase": {
        "en": "you cannot {action} cards during the {phase} phase",
        "vi": "không thể {action} trong giai đoạn {phase}",
    },
    # A game's outcome as a score pad is told it (tienlen.scoring.OutcomeError): ``player``
    # and ``players`` are the players' names, written by the app that knows them.
    "outcome_order": {
        "en": "the finishing order must name each of the {count} players once, not {players}",
        "vi": "thứ tự về phải có đủ {count} người chơi, mỗi người một lần, không phải {players}",
    },
    "outcome_cards_left_count": {
        "en": "give the cards each of the {count} players held when the first went out, "
        "not {given} counts",
        "vi": "hãy ghi số lá của cả {count} người chơi khi người đầu tiên về, không phải {given}",
    },
    "outcome_cards_left_range": {
        "en": "{player} cannot have held {cards} cards: from 0 to {most}",
        "vi": "{player} không thể còn {cards} lá: chỉ từ 0 đến {most}",
    },
    "outcome_winner_cards": {
        "en": "{player} went out first, so held 0 cards, not {cards}",
        "vi": "{player} về nhất nên còn 0 lá, không phải {cards}",
    },
    "outcome_needs_cards_left": {
        "en": "{scoring} scoring needs the cards each player held when the first went out",
        "vi": "cách tính điểm {scoring} cần số lá mỗi người còn khi người đầu tiên về",
    },
    "outcome_cong": {
        "en": "{player} went out first, so cannot be cóng",
        "vi": "{player} về nhất nên không thể bị cóng",
    },
    "outcome_no_player": {
        "en": "{player} is not a player in this game",
        "vi": "{player} không có trong ván này",
    },
    "outcome_instant_win": {
        "en": "after an instant win nobody played: no cóng, chops or last play",
        "vi": "tới trắng thì không ai đánh: không có cóng, chặt hay nước cuối",
    },
    "outcome_hands_count": {
        "en": "give the cards left of each of the {count} players, not {given} hands",
        "vi": "hãy ghi bài còn lại của cả {count} người chơi, không phải {given}",
    },
    "outcome_no_guarantees": {
        "en": "these rules have no guarantees",
        "vi": "luật này không có cam kết về nhất",
    },
    "outcome_guarantee_twice": {
        "en": "{player} can guarantee only once",
        "vi": "{player} chỉ được cam kết một lần",
    },
    "outcome_self_chop": {
        "en": "chop {chop}: {player} cannot chop their own play",
        "vi": "lần chặt {chop}: {player} không thể tự chặt bài của mình",
    },
    "outcome_chop_twos": {
        "en": "chop {chop}: the counts of 2s are 0 or more",
        "vi": "lần chặt {chop}: số heo phải từ 0 trở lên",
    },
    "outcome_chop_on": {
        "en": "chop {chop} can only answer an earlier chop, not chop {on}",
        "vi": "lần chặt {chop} chỉ chặt lại được lần chặt trước nó, không phải lần {on}",
    },
    "outcome_uncounted": {
        "en": "these rules do not count {fields}",
        "vi": "luật này không tính {fields}",
    },
    "outcome_hand": {
        "en": "{player}'s cards left: {error}",
        "vi": "bài còn lại của {player}: {error}",
    },
    # Why the heuristic bot (the hint) suggests a move: ``{m:kind}`` the move, ``{n}`` its
    # card count, ``{c}`` its top card, ``{t:kind}`` the pile it beats.
    "hint_decline": {"en": "decline the lead", "vi": "nhường, không mở vòng"},
    "hint_out": {"en": "go out with your {m:kind}", "vi": "về bằng {m:kind}"},
    "hint_lead_low": {
        "en": "lead your lowest {m:kind}",
        "vi": "mở vòng bằng {m:kind}, bộ nhỏ nhất của bạn",
    },
    "hint_lead_shed": {"en": "shed {n} cards: {m:kind}", "vi": "xả {n} lá: {m:kind}"},
    "hint_boss_out": {
        "en": "nobody can beat your {m:kind}: keep the lead, then go out",
        "vi": "không ai chặn được {m:kind} của bạn: giữ vòng rồi về",
    },
    "hint_boss_finish": {
        "en": "nobody can beat your {m:kind}: take control for the finish",
        "vi": "không ai chặn được {m:kind} của bạn: giành vòng để về",
    },
    "hint_one_card_single": {
        "en": "an opponent has one card: lead your highest single ({c})",
        "vi": "có người chỉ còn một lá: mở vòng bằng lá lẻ cao nhất của bạn ({c})",
    },
    "hint_one_card_combo": {
        "en": "an opponent has one card: lead a {m:kind}, not a single",
        "vi": "có người chỉ còn một lá: mở vòng bằng {m:kind}, đừng đánh lẻ",
    },
    "hint_pass": {
        "en": "pass: nothing worth playing on this pile",
        "vi": "bỏ lượt: vòng này không đáng đánh",
    },
    "hint_pass_only": {"en": "nothing to do but pass", "vi": "chỉ có thể bỏ lượt"},
    "hint_accept_trade": {
        "en": "accept: the swap leaves your hand cheaper to play out",
        "vi": "đồng ý: đổi xong bài dễ đánh hết hơn",
    },
    "hint_refuse_trade": {
        "en": "refuse: the swap would not make your hand easier to play out",
        "vi": "từ chối: đổi không làm bài dễ đánh hết hơn",
    },
    "hint_give": {
        "en": "give away the cards your hand needs least",
        "vi": "đưa những lá bạn ít cần nhất",
    },
    "hint_follow_low": {
        "en": "play your lowest {m:kind} that beats the pile",
        "vi": "đánh {m:kind}, bộ nhỏ nhất chặn được vòng này",
    },
    "hint_breaks": {
        "en": "the {m:kind} breaks up your hand",
        "vi": "đánh {m:kind} sẽ phá bài của bạn",
    },
    "hint_chop": {
        "en": "chop the {t:kind} with your {m:kind}",
        "vi": "chặt {t:kind} bằng {m:kind} của bạn",
    },
    "hint_bomb_urgent": {
        "en": "an opponent is nearly out: bomb with your {m:kind}",
        "vi": "có người sắp về: chặt bằng {m:kind} của bạn",
    },
    "hint_keep_bomb": {
        "en": "keep your {m:kind} for the 2s",
        "vi": "giữ {m:kind} để chặt heo",
    },
    "hint_keep_two": {
        "en": "keep your 2s for later rather than play the {m:kind}",
        "vi": "giữ heo để sau, đừng đánh {m:kind}",
    },
    "hint_two_wins": {
        "en": "win the pile with your {m:kind}",
        "vi": "ăn vòng này bằng {m:kind} của bạn",
    },
    "hint_boss_follow": {
        "en": "nobody can beat your {m:kind}: win the pile, then go out",
        "vi": "không ai chặn được {m:kind} của bạn: ăn vòng rồi về",
    },
    "hint_next_one_card": {
        "en": "the next player has one card: beat with your highest single ({c})",
        "vi": "người kế tiếp chỉ còn một lá: chặn bằng lá lẻ cao nhất của bạn ({c})",
    },
}

#: How a combination is worded: ``plain`` without its top, ``top`` with it (``{rank}`` the
#: top rank, ``{top}`` the top card, ``{size}`` the kind's size).
KINDS: dict[str, dict[str, dict[str, str]]] = {
    "pass": {"plain": {"en": "pass", "vi": "bỏ lượt"}},
    "single": {
        "plain": {"en": "single", "vi": "rác"},
        "top": {"en": "single {top}", "vi": "lá {top}"},
    },
    "pair": {
        "plain": {"en": "pair", "vi": "đôi"},
        "rank": {"en": "pair of {rank}s", "vi": "đôi {rank}"},
    },
    "triple": {
        "plain": {"en": "triple", "vi": "sám cô"},
        "rank": {"en": "triple of {rank}s", "vi": "sám cô {rank}"},
    },
    "quad": {
        "plain": {"en": "quad", "vi": "tứ quý"},
        "rank": {"en": "quad of {rank}s", "vi": "tứ quý {rank}"},
    },
    "straight": {
        "plain": {"en": "{size}-card straight", "vi": "sảnh {size} lá"},
        "top": {"en": "{size}-card straight to {top}", "vi": "sảnh {size} lá đến {top}"},
    },
    "pair_run": {
        "plain": {"en": "{size}-pair run", "vi": "{size} đôi thông"},
        "top": {"en": "{size}-pair run to {top}", "vi": "{size} đôi thông đến {top}"},
    },
    "triple_run": {
        "plain": {"en": "{size}-triple run", "vi": "{size} ba thông"},
        "top": {"en": "{size}-triple run to {top}", "vi": "{size} ba thông đến {top}"},
    },
    "quad_run": {"plain": {"en": "{size} consecutive quads", "vi": "{size} tứ quý liên tiếp"}},
    "multi_quad": {"plain": {"en": "{size} quads", "vi": "{size} tứ quý"}},
}

#: Kind names on their own (lists of kinds, e.g. the kinds a first play may take).
KIND_NAMES: dict[str, dict[str, str]] = {
    "single": {"en": "single", "vi": "rác"},
    "pair": {"en": "pair", "vi": "đôi"},
    "triple": {"en": "triple", "vi": "sám cô"},
    "quad": {"en": "quad", "vi": "tứ quý"},
    "straight": {"en": "straight", "vi": "sảnh"},
    "pair_run": {"en": "pair run", "vi": "đôi thông"},
    "triple_run": {"en": "triple run", "vi": "ba thông"},
    "quad_run": {"en": "quad run", "vi": "tứ quý liên tiếp"},
    "multi_quad": {"en": "multi quad", "vi": "nhiều tứ quý"},
    "dragon": {"en": "dragon", "vi": "sảnh rồng"},
}
_OR = {"en": "or", "vi": "hoặc"}
_FIELD = re.compile(r"\{(\w+)(?::(\w+))?\}")


def kind_param(kind: str, size: int, rank: str = "", top: str = "") -> dict[str, Any]:
    """A combination as a reason parameter (``rank`` and ``top`` as text, or empty)."""
    return {"kind": kind, "size": size, "rank": rank, "top": top}


def kind_words(value: Mapping[str, Any], lang: str = "en") -> str:
    """A combination in words: ``{"kind": "straight", "size": 3, "top": "5♦"}`` →
    ``"3-card straight to 5♦"``; a kind with no entry is its own name."""
    forms = KINDS.get(value["kind"])
    if forms is None:
        return str(value["kind"])
    if value.get("top") and "top" in forms:
        form = forms["top"]
    elif value.get("rank") and "rank" in forms:
        form = forms["rank"]
    else:
        form = forms["plain"]
    return _fill(form.get(lang, form["en"]), value, lang)


def _kinds_words(kinds: list[str], lang: str) -> str:
    words = [KIND_NAMES.get(k, {}).get(lang) or k.replace("_", " ") for k in kinds]
    *most, last = words
    return f"{', '.join(most)} {_OR.get(lang, 'or')} {last}" if most else last


def _fill(template: str, params: Mapping[str, Any], lang: str) -> str:
    def field(m: re.Match[str]) -> str:
        name, form = m.group(1), m.group(2)
        value = params[name]
        if form == "kind":
            return kind_words(value, lang)
        if form == "kinds":
            return _kinds_words(list(value), lang)
        return str(value)

    return _FIELD.sub(field, template)


class Reason(Coded):
    """A refusal: its English text as a ``str``, with a stable ``code`` (a key of
    :data:`REASONS`) and ``params`` (:class:`~tienlen.coded.Coded`)."""

    CATALOGUE = REASONS

    @classmethod
    def fill(cls, template: str, params: Mapping[str, Any], lang: str) -> str:
        """``template`` with ``params``: a ``{name:kind}`` field in words for a kind."""
        return _fill(template, params, lang)


def reason(code: str, **params: Any) -> Reason:
    """The :class:`Reason` ``code`` with these parameters."""
    return Reason(code, params)


def reason_catalogue() -> dict[str, Any]:
    """Every table the words come from, JSON-ready (``GET /api/reasons``)."""
    return {"reasons": REASONS, "kinds": KINDS, "kind_names": KIND_NAMES, "or": _OR}
