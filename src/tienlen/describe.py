"""Plain-words explanations of a :class:`~tienlen.Rules` value, written from its knobs.

:func:`describe_rules` turns any rules value (a preset or a house mix) into short sections
of sentences; nothing here asks which preset a value came from. The only per-preset text
is :data:`SUMMARIES`, the one-line summaries that ``tienlen rules`` lists.

Every sentence, heading and summary is a :class:`Phrase`: a ``str`` (its English text, so
code that prints or compares sentences keeps working) that also carries a stable ``code``
and ``params``, worded in English and Vietnamese from one catalogue, :data:`PHRASES`, the
way :mod:`tienlen.reasons` words refusals:

>>> p = rules_sections(Rules.preset("standard"))[0][1][0]
>>> str(p), p.code
('4 players, one 52-card deck; play goes clockwise.', 'deal.players')
>>> p.text("vi")
'4 người chơi, một bộ bài 52 lá; chơi theo chiều kim đồng hồ.'

A template names its parameters in braces: ``{name}`` is the value worded in the language
(a number or a card as it is, a :class:`Phrase` or a :class:`Join` in that language), and
``{name:cap}`` the same with a capital first letter. The browser reads the same catalogue
(``GET /api/descriptions``) and the sentences as ``{code, params}`` (``GET /api/rules``).
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Mapping, Sequence
from typing import Any, Literal

from .cards import RANKS, Card
from .coded import Coded
from .patterns import KINDS, Pattern, parse_pattern
from .rules import KNOBS, Rules
from .scoring import PROPLAY_BET, SCHEMES

__all__ = [
    "PHRASES",
    "SUMMARIES",
    "Join",
    "Phrase",
    "describe_differences",
    "describe_pattern",
    "describe_rules",
    "phrase_catalogue",
    "rules_sections",
]

#: Every phrase code and its template in each language (``en`` and ``vi``).
PHRASES: dict[str, dict[str, str]] = {
    # --- summaries of the presets ----------------------------------------------------
    "summary.standard": {
        "en": "modern southern rules: 3♠ in the first lead, no 2s in runs, score pad",
        "vi": "luật miền Nam hiện đại: nước đầu có 3♠, không có heo trong sảnh, ghi điểm theo sổ",
    },
    "summary.wikipedia": {
        "en": "core rules: lowest card led alone, 2s may top runs, no bombing after a pass",
        "vi": "luật cơ bản: lá nhỏ nhất đánh lẻ trước, heo được đứng đầu sảnh, "
        "đã bỏ lượt thì không được chặt",
    },
    "summary.pagat": {
        "en": "3♠ holder leads with it, 2s may top runs, bombs allowed after passing",
        "vi": "ai có 3♠ đánh trước bằng lá đó, heo được đứng đầu sảnh, đã bỏ lượt vẫn được chặt",
    },
    "summary.pang": {
        "en": "Pagat plus: the 3♠ holder may decline, no 2s in runs, stacking",
        "vi": "như Pagat, thêm: ai có 3♠ được nhường, không có heo trong sảnh, được chồng bài",
    },
    "summary.lu": {
        "en": "17 cards with 2-3 players, quads beat any single or pair, first out ends it",
        "vi": "17 lá khi chơi 2-3 người, tứ quý chặt được mọi lá lẻ hay đôi, "
        "người đầu tiên về là hết ván",
    },
    "summary.vietcong": {
        "en": "four 2s win at once, consecutive quads, 2s may top pair runs",
        "vi": "tứ quý heo tới trắng, có tứ quý liên tiếp, heo được đứng đầu đôi thông",
    },
    "summary.suited": {
        "en": "follow suit and colour, instant wins, every game from the lowest card",
        "vi": "phải theo chất và màu, có tới trắng, ván nào cũng bắt đầu từ lá nhỏ nhất",
    },
    "summary.hawaii": {
        "en": "13 each always, quad beats a 3-pair run, every game from the lowest card",
        "vi": "luôn 13 lá mỗi người, tứ quý chặt được ba đôi thông, "
        "ván nào cũng bắt đầu từ lá nhỏ nhất",
    },
    "summary.akita": {
        "en": "no lock-out, bombs beat anything, triples beat an ace, suited-straight lock",
        "vi": "bỏ lượt không bị khoá, bom chặt mọi thứ, sám cô chặt được át, "
        "sảnh đồng chất khoá sảnh",
    },
    "summary.pike": {
        "en": "no lock-out, only 3-pair runs bomb, four hands dealt, suited-straight lock",
        "vi": "bỏ lượt không bị khoá, chỉ ba đôi thông là bom, luôn chia bốn phần bài, "
        "sảnh đồng chất khoá sảnh",
    },
    "summary.proplay": {
        "en": "16-level bomb ladder with re-bombing, winner takes all, point system",
        "vi": "thang bom 16 bậc, được chặt chồng, người thắng ăn hết, tính điểm chi tiết",
    },
    "summary.double-deck-13": {
        "en": "8 players, two decks, red back wins ties, blue K♦ kills any single",
        "vi": "8 người, hai bộ bài, lá lưng đỏ thắng lá giống hệt, K♦ lưng xanh chặt mọi lá lẻ",
    },
    # --- headings ---------------------------------------------------------------------
    "head.deal": {"en": "Deal", "vi": "Chia bài"},
    "head.start": {"en": "Who starts", "vi": "Ai đánh trước"},
    "head.combinations": {"en": "Combinations", "vi": "Các bộ bài"},
    "head.beating": {"en": "Beating a play", "vi": "Chặn một nước"},
    "head.bombs": {"en": "Bombs (chopping)", "vi": "Bom (chặt)"},
    "head.passing": {"en": "Passing and the end of a pile", "vi": "Bỏ lượt và hết vòng"},
    "head.before": {"en": "Before play", "vi": "Trước khi đánh"},
    "head.ending": {"en": "End of the game and scoring", "vi": "Hết ván và tính điểm"},
    # --- knobs: what each knob of the rules is about (Knob.description) ------------------
    "knob.name": {"en": "Name of the rule set", "vi": "Tên bộ luật"},
    "knob.players": {"en": "Number of players", "vi": "Số người chơi"},
    "knob.decks": {"en": "Number of decks", "vi": "Số bộ bài"},
    "knob.hand_size": {"en": "Cards dealt to each player", "vi": "Số lá chia cho mỗi người"},
    "knob.few_players_hand_size": {
        "en": "Cards each with 2 or 3 players",
        "vi": "Số lá mỗi người khi chơi 2 hay 3 người",
    },
    "knob.starter_takes_spare": {
        "en": "The first leader takes a card left over",
        "vi": "Người đánh trước lấy lá dư",
    },
    "knob.deal_four_hands": {
        "en": "Always deal four hands of 13",
        "vi": "Luôn chia bốn phần 13 lá",
    },
    "knob.direction": {"en": "Direction of play", "vi": "Chiều đánh"},
    "knob.first_lead": {"en": "The first lead of the first game", "vi": "Nước đầu của ván đầu"},
    "knob.later_leads": {"en": "Who leads the later games", "vi": "Ai đánh trước các ván sau"},
    "knob.first_lead_kinds": {
        "en": "Combinations the first lead may be",
        "vi": "Các bộ được đánh ở nước đầu",
    },
    "knob.extra_kinds": {"en": "Extra combinations", "vi": "Các bộ bài thêm"},
    "knob.twos_in_straight": {"en": "2s in a straight", "vi": "Heo trong sảnh"},
    "knob.twos_in_pair_run": {"en": "2s in a run of pairs", "vi": "Heo trong đôi thông"},
    "knob.min_straight": {"en": "Shortest straight", "vi": "Sảnh ngắn nhất"},
    "knob.min_pair_run": {"en": "Fewest pairs in a run of pairs", "vi": "Đôi thông ít đôi nhất"},
    "knob.min_triple_run": {
        "en": "Fewest triples in a run of triples",
        "vi": "Ba thông ít sám cô nhất",
    },
    "knob.min_quad_run": {"en": "Fewest consecutive quads", "vi": "Tứ quý liên tiếp ít nhất"},
    "knob.tie_rule": {
        "en": "Two identical cards (two decks)",
        "vi": "Hai lá giống hệt nhau (hai bộ bài)",
    },
    "knob.single_same_suit": {
        "en": "A single is beaten in its own suit",
        "vi": "Lá lẻ phải chặn bằng lá cùng chất",
    },
    "knob.pair_same_colours": {
        "en": "A pair is beaten in its own colours",
        "vi": "Đôi phải chặn bằng đôi cùng màu",
    },
    "knob.triple_same_suits": {
        "en": "A triple is beaten in its own suits",
        "vi": "Sám cô phải chặn bằng sám cô cùng chất",
    },
    "knob.pair_run_same_colours": {
        "en": "A run of pairs is beaten in its own colours",
        "vi": "Đôi thông phải chặn bằng đôi thông cùng màu",
    },
    "knob.pair_run_one_colour": {
        "en": "Each pair of a run of pairs in one colour",
        "vi": "Mỗi đôi trong đôi thông phải cùng màu",
    },
    "knob.pair_run_above": {
        "en": "A run of pairs is beaten only from above its highest pair",
        "vi": "Đôi thông phải chặn bằng đôi thông cao hơn hẳn",
    },
    "knob.straight_above": {
        "en": "A straight is beaten only from above its highest card",
        "vi": "Sảnh phải chặn bằng sảnh cao hơn hẳn",
    },
    "knob.straight_lock": {
        "en": "A suited straight locks the suit",
        "vi": "Sảnh đồng chất khoá sảnh",
    },
    "knob.triple_beats_ace": {
        "en": "A triple may be played on a single ace",
        "vi": "Sám cô chặn được át",
    },
    "knob.single_killer": {
        "en": "A card that beats any single",
        "vi": "Lá chặt được mọi lá lẻ",
    },
    "knob.chops": {"en": "What each bomb chops", "vi": "Bom chặt được gì"},
    "knob.bomb_ladder": {"en": "The bomb ladder", "vi": "Thang bom"},
    "knob.bombs_may_lead": {"en": "A bomb may lead a pile", "vi": "Được mở vòng bằng bom"},
    "knob.pass_locks": {
        "en": "Passing locks you out of the pile",
        "vi": "Bỏ lượt thì bị khoá đến hết vòng",
    },
    "knob.after_pass_bombs": {
        "en": "Bombs a passed player may still play",
        "vi": "Bom được chặt sau khi đã bỏ lượt",
    },
    "knob.after_pass_on_chops": {
        "en": "A passed player may bomb back on a bomb",
        "vi": "Đã bỏ lượt vẫn được chặt chồng",
    },
    "knob.stacking": {"en": "Stacking", "vi": "Chồng bài"},
    "knob.out_ends_pile": {
        "en": "Going out ends the pile",
        "vi": "Người về thì hết vòng",
    },
    "knob.may_finish_on_two": {"en": "Going out on a 2", "vi": "Được về bằng heo"},
    "knob.instant_wins": {"en": "Instant wins", "vi": "Tới trắng"},
    "knob.redeal_four_twos": {
        "en": "Redeal when four 2s are dealt",
        "vi": "Chia lại khi có tứ quý heo",
    },
    "knob.trading": {"en": "Trading cards before play", "vi": "Đổi bài trước khi đánh"},
    "knob.opening_bombs": {
        "en": "Bombs that may open the first game",
        "vi": "Bom được đánh mở ván đầu",
    },
    "knob.hidden_counts": {"en": "Hidden card counts", "vi": "Giấu số lá trên tay"},
    "knob.end_at_first_out": {
        "en": "The game ends when the first player goes out",
        "vi": "Người đầu tiên về là hết ván",
    },
    "knob.scoring": {"en": "Scoring", "vi": "Cách tính điểm"},
    "knob.cong": {
        "en": "Cóng (no card played pays double)",
        "vi": "Cóng (chưa đánh lá nào thì trả gấp đôi)",
    },
    "knob.got_to_get_in": {"en": "Got to Get In points", "vi": "Điểm Got to Get In"},
    "knob.guarantees": {"en": "Guarantees", "vi": "Bảo đảm"},
    "knob.score_extras": {"en": "Extra scores", "vi": "Điểm thưởng phạt thêm"},
    "knob.loser_owes_twos": {
        "en": "The loser owes 2s",
        "vi": "Người thua nợ heo",
    },
    "knob.chop_debts": {"en": "Cards owed for a chopped 2", "vi": "Lá nợ khi bị chặt heo"},
    "knob.debt_card": {"en": "Which cards a debtor gives", "vi": "Người nợ đưa lá nào"},
    # --- combinations, patterns and hands (parts of sentences) ------------------------
    "kind.single": {"en": "single", "vi": "lá lẻ (rác)"},
    "kind.pair": {"en": "pair", "vi": "đôi"},
    "kind.triple": {"en": "triple", "vi": "sám cô"},
    "kind.quad": {"en": "four of a kind (tứ quý)", "vi": "tứ quý"},
    "kind.straight": {"en": "straight (sảnh)", "vi": "sảnh"},
    "kind.pair_run": {"en": "run of pairs (đôi thông)", "vi": "đôi thông"},
    "kind.triple_run": {"en": "run of triples", "vi": "ba thông (sám cô liên tiếp)"},
    "kind.quad_run": {"en": "run of consecutive quads", "vi": "tứ quý liên tiếp"},
    "kind.multi_quad": {
        "en": "set of two or more quads played together",
        "vi": "hai tứ quý trở lên đánh cùng lúc",
    },
    "kind.dragon": {"en": "dragon (the 12-card straight 3 to A)", "vi": "sảnh rồng (từ 3 đến A)"},
    "instant.four-twos": {"en": "all four 2s", "vi": "tứ quý heo"},
    "instant.six-pairs": {"en": "six pairs", "vi": "sáu đôi"},
    "instant.three-triples": {"en": "three triples", "vi": "ba sám cô"},
    "instant.dragon": {"en": "a dragon (3 to A)", "vi": "sảnh rồng (từ 3 đến A)"},
    "instant.five-consecutive-pairs": {
        "en": "five consecutive pairs",
        "vi": "năm đôi thông",
    },
    "unit.card": {"en": "cards", "vi": "lá"},
    "unit.quad": {"en": "quads", "vi": "tứ quý"},
    "unit.pair_run": {"en": "pairs", "vi": "đôi thông"},
    "unit.triple_run": {"en": "triples", "vi": "sám cô liên tiếp"},
    "unit.consecutive quad": {"en": "consecutive quads", "vi": "tứ quý liên tiếp"},
    "size.any": {"en": "{unit}", "vi": "{unit}"},
    "size.exactly": {"en": "exactly {n} {unit}", "vi": "đúng {n} {unit}"},
    "size.more": {"en": "{n} or more {unit}", "vi": "từ {n} {unit} trở lên"},
    "rank.two": {"en": "2", "vi": "heo"},
    "pat.any": {"en": "any play", "vi": "bất kỳ nước nào"},
    "pat.single_of": {"en": "a single {rank}", "vi": "một lá {rank}"},
    "pat.pair_of": {"en": "a pair of {rank}s", "vi": "đôi {rank}"},
    "pat.triple_of": {"en": "three {rank}s", "vi": "sám cô {rank}"},
    "pat.quad_of": {"en": "four {rank}s", "vi": "tứ quý {rank}"},
    "pat.single": {"en": "any single card", "vi": "bất kỳ lá lẻ nào"},
    "pat.pair": {"en": "any pair", "vi": "bất kỳ đôi nào"},
    "pat.triple": {"en": "any triple", "vi": "bất kỳ sám cô nào"},
    "pat.quad": {"en": "a four of a kind", "vi": "một tứ quý"},
    "pat.straight": {"en": "a straight", "vi": "một sảnh"},
    "pat.straight_of": {"en": "a straight of {size}", "vi": "một sảnh {size}"},
    "pat.straight_end": {
        "en": "a straight ending in a {rank}",
        "vi": "một sảnh tận cùng là {rank}",
    },
    "pat.straight_of_end": {
        "en": "a straight of {size} ending in a {rank}",
        "vi": "một sảnh {size} tận cùng là {rank}",
    },
    "pat.pair_run": {"en": "a run of {size}", "vi": "{size}"},
    "pat.triple_run": {"en": "a run of {size}", "vi": "{size}"},
    "pat.topped": {"en": "{what} topped by {rank}s", "vi": "{what} với {rank} đứng đầu"},
    "pat.quad_run": {"en": "consecutive quads", "vi": "tứ quý liên tiếp"},
    "pat.multi_quad": {
        "en": "two or more quads played together",
        "vi": "hai tứ quý trở lên đánh cùng lúc",
    },
    "pat.quads_together": {"en": "{size} played together", "vi": "{size} đánh cùng lúc"},
    "pat.dragon": {"en": "a dragon", "vi": "một sảnh rồng"},
    "pat.raw": {"en": "{text}", "vi": "{text}"},
    "deck.one": {"en": "one 52-card deck", "vi": "một bộ bài 52 lá"},
    "deck.two": {
        "en": "two 52-card decks (blue and red backs)",
        "vi": "hai bộ bài 52 lá (lưng xanh và lưng đỏ)",
    },
    "direction.clockwise": {"en": "clockwise", "vi": "theo chiều kim đồng hồ"},
    "direction.anticlockwise": {"en": "anticlockwise", "vi": "ngược chiều kim đồng hồ"},
    "bomb.rungs": {
        "en": "any bomb on rungs {low}-{high} of the ladder below",
        "vi": "bất kỳ bom nào từ bậc {low} đến bậc {high} của thang bom dưới đây",
    },
    "bomb.any": {"en": "any bomb", "vi": "bất kỳ bom nào"},
    "owed.stacking": {
        "en": "one card, plus one for each 2 beyond the first and for each bomb played on a "
        "bomb above it",
        "vi": "một lá, cộng thêm một lá cho mỗi heo sau heo đầu tiên và cho mỗi bom chặt chồng "
        "lên trên",
    },
    "owed.doubling": {
        "en": "one card, doubled for each 2 beyond the first and for each bomb played on a "
        "bomb above it",
        "vi": "một lá, nhân đôi cho mỗi heo sau heo đầu tiên và cho mỗi bom chặt chồng lên trên",
    },
    "owed.no-stacking": {
        "en": "one card per 2 chopped, however many bombs were played on top",
        "vi": "một lá cho mỗi heo bị chặt, dù có bao nhiêu bom chặt chồng lên trên",
    },
    "debtcard.highest-two": {
        "en": "their highest 2s (a debtor without a 2 gives nothing)",
        "vi": "những con heo cao nhất của mình (người nợ không có heo thì không phải đưa gì)",
    },
    "debtcard.any-two": {
        "en": "2s of their choice (a debtor without a 2 gives nothing)",
        "vi": "những con heo tự chọn (người nợ không có heo thì không phải đưa gì)",
    },
    "debtcard.highest-card": {
        "en": "their highest cards",
        "vi": "những lá cao nhất của mình",
    },
    "scheme.stake": {
        "en": "the loser pays one point to every other player",
        "vi": "người thua trả một điểm cho mỗi người chơi khác",
    },
    "scheme.scorepad": {
        "en": "+2 +1 −1 −2 by finishing place with four players; with two or three the last "
        "pays 1 to each",
        "vi": "+2 +1 −1 −2 theo thứ tự về khi chơi bốn người; hai hay ba người thì người bét "
        "trả 1 điểm cho mỗi người",
    },
    "scheme.per-card": {
        "en": "everyone pays the winner one point per card left",
        "vi": "mọi người trả người thắng một điểm cho mỗi lá còn lại",
    },
    "scheme.winner-takes-all": {
        "en": "everyone pays the winner 2 points, 4 if still holding every card",
        "vi": "mọi người trả người thắng 2 điểm, 4 điểm nếu còn nguyên bài (cóng)",
    },
    "scheme.proplay": {
        "en": "Pro-Play's bet: every other player pays the winner x, 2x with over 10 cards left",
        "vi": "cược Pro-Play: mỗi người khác trả người thắng x, 2x nếu còn trên 10 lá",
    },
    # --- sentences: the deal -------------------------------------------------------------
    "deal.players": {
        "en": "{players} players, {deck}; play goes {direction}.",
        "vi": "{players} người chơi, {deck}; chơi {direction}.",
    },
    "deal.four_hands": {
        "en": "Exactly four hands of 13 are dealt whatever the number of players; unused hands "
        "are set aside unseen. With two players the two unused hands are the next game, "
        "without reshuffling.",
        "vi": "Luôn chia đúng bốn phần 13 lá dù có bao nhiêu người chơi; phần thừa được úp "
        "sang một bên. Khi chơi hai người, hai phần thừa là bài của ván sau, không xào lại.",
    },
    "deal.each": {
        "en": "Each player is dealt {size} cards.",
        "vi": "Mỗi người được chia {size} lá.",
    },
    "deal.each_all": {
        "en": "Each player is dealt {size} cards (the deck dealt out equally).",
        "vi": "Mỗi người được chia {size} lá (chia đều hết bộ bài).",
    },
    "deal.each_few": {
        "en": "Each player is dealt {size} cards; with 2 or 3 players, {few} each.",
        "vi": "Mỗi người được chia {size} lá; chơi 2 hay 3 người thì mỗi người {few} lá.",
    },
    "deal.each_all_few": {
        "en": "Each player is dealt {size} cards (the deck dealt out equally); with 2 or 3 "
        "players, {few} each.",
        "vi": "Mỗi người được chia {size} lá (chia đều hết bộ bài); chơi 2 hay 3 người thì mỗi "
        "người {few} lá.",
    },
    "deal.spare_to_leader": {
        "en": "The one card left over goes to the player who leads first.",
        "vi": "Lá bài dư duy nhất thuộc về người đánh trước.",
    },
    "deal.spare_aside": {
        "en": "The {spare} cards left over are set aside unseen.",
        "vi": "{spare} lá dư được úp sang một bên.",
    },
    "deal.spare_if_one": {
        "en": "If exactly one card is left over, the first leader takes it.",
        "vi": "Nếu dư đúng một lá, người đánh trước lấy lá đó.",
    },
    "deal.dealer": {
        "en": "The first dealer is chosen at random; after that the loser deals.",
        "vi": "Người chia ván đầu được chọn ngẫu nhiên; sau đó người thua chia bài.",
    },
    "deal.redeal_four_twos": {
        "en": "A player dealt four 2s shows them and the cards are dealt again; four 2s win "
        "nothing.",
        "vi": "Người được chia tứ quý heo phải báo cho cả bàn và bài được chia lại; tứ quý heo "
        "không thắng trắng.",
    },
    "deal.hidden_counts": {
        "en": "Card counts are hidden: during play a player may ask another how many cards they "
        "hold, and the answer is told to the whole table.",
        "vi": "Số lá trên tay được giấu: trong lúc đánh, một người chơi có thể hỏi người khác còn "
        "bao nhiêu lá, và câu trả lời được nói cho cả bàn.",
    },
    # --- who starts ----------------------------------------------------------------------
    "start.lowest-single": {
        "en": "The first game starts with the lowest card dealt (the 3♠ when it is dealt), "
        "played on its own.",
        "vi": "Ván đầu bắt đầu bằng lá nhỏ nhất được chia (3♠ nếu có), đánh lẻ.",
    },
    "start.must-include-lowest": {
        "en": "The first game is led by the holder of the lowest card dealt (the 3♠ when it is "
        "dealt), whose first play must include it.",
        "vi": "Ván đầu do người có lá nhỏ nhất được chia (3♠ nếu có) đánh trước, và nước đầu "
        "phải có lá đó.",
    },
    "start.holder-free": {
        "en": "The first game is led by the holder of the 3♠ (the lowest card dealt if the 3♠ "
        "is not), who may lead anything.",
        "vi": "Ván đầu do người có 3♠ (hoặc lá nhỏ nhất được chia nếu không ai có 3♠) đánh "
        "trước, được đánh bất cứ bộ nào.",
    },
    "start.holder-may-decline": {
        "en": "The holder of the lowest card dealt (the 3♠ when it is dealt) leads a play "
        "containing it, or may decline: then the next player leads anything.",
        "vi": "Người có lá nhỏ nhất được chia (3♠ nếu có) đánh trước một nước có lá đó, hoặc "
        "nhường: khi đó người kế tiếp đánh trước bất cứ bộ nào.",
    },
    "start.kinds": {
        "en": "That opening play must be a {kinds}; no other kind may open.",
        "vi": "Nước mở đầu đó phải là {kinds}; không được mở bằng kiểu khác.",
    },
    "start.opening_bombs": {
        "en": "Before the first lead of every game, each other player in turn may open out of "
        "turn with {bombs}, without the lowest card; play then goes on from them.",
        "vi": "Trước nước đầu tiên của mỗi ván, lần lượt từng người khác được đánh ngoài lượt "
        "bằng {bombs}, không cần lá nhỏ nhất; rồi ván tiếp tục từ người đó.",
    },
    "start.later_winner": {
        "en": "Every later game is led by the previous winner, who may lead anything.",
        "vi": "Các ván sau do người thắng ván trước đánh trước, được đánh bất cứ bộ nào.",
    },
    "start.later_same": {
        "en": "Every later game starts the same way as the first.",
        "vi": "Các ván sau bắt đầu giống như ván đầu.",
    },
    # --- combinations ----------------------------------------------------------------------
    "comb.plays": {"en": "Plays: {kinds}.", "vi": "Các bộ được đánh: {kinds}."},
    "comb.straight_top_two": {
        "en": "A straight has at least {n} consecutive cards of any suits; a 2 may be its top "
        "card (K-A-2). Runs never wrap round (no A-2-3).",
        "vi": "Sảnh có ít nhất {n} lá liên tiếp, chất nào cũng được; heo được đứng đầu sảnh "
        "(K-A-2). Sảnh không vòng lại (không có A-2-3).",
    },
    "comb.straight_no_two": {
        "en": "A straight has at least {n} consecutive cards of any suits; 2s may not be in a "
        "straight. Runs never wrap round (no A-2-3).",
        "vi": "Sảnh có ít nhất {n} lá liên tiếp, chất nào cũng được; heo không được nằm trong "
        "sảnh. Sảnh không vòng lại (không có A-2-3).",
    },
    "comb.pair_run_top_two": {
        "en": "A run of pairs has at least {n} consecutive pairs; 2s may be its top pair.",
        "vi": "Đôi thông có ít nhất {n} đôi liên tiếp; đôi heo được đứng đầu.",
    },
    "comb.pair_run_no_two": {
        "en": "A run of pairs has at least {n} consecutive pairs; it may not hold 2s.",
        "vi": "Đôi thông có ít nhất {n} đôi liên tiếp; không được có heo.",
    },
    "comb.pair_run_colour": {
        "en": "A run of pairs must be all red (♦ ♥) or all black (♠ ♣) cards.",
        "vi": "Đôi thông phải toàn lá đỏ (♦ ♥) hoặc toàn lá đen (♠ ♣).",
    },
    "comb.triple_run": {
        "en": "A run of triples has at least {n} consecutive triples.",
        "vi": "Ba thông có ít nhất {n} sám cô liên tiếp.",
    },
    "comb.quad_run": {
        "en": "A run of quads has at least {n} consecutive quads.",
        "vi": "Tứ quý liên tiếp gồm ít nhất {n} tứ quý liền nhau.",
    },
    "comb.multi_quad": {
        "en": "Any {n} or more quads may be played together, consecutive or not.",
        "vi": "Được đánh cùng lúc từ {n} tứ quý trở lên, liền nhau hay không.",
    },
    "comb.dragon": {
        "en": "The 12-card straight 3 to A is a dragon, a combination of its own.",
        "vi": "Sảnh 12 lá từ 3 đến A là sảnh rồng, một bộ riêng.",
    },
    # --- beating a play ----------------------------------------------------------------
    "beat.same_kind": {
        "en": "A play is beaten by the same kind with the same number of cards and a higher top "
        "card (rank first, then suit ♠ < ♣ < ♦ < ♥).",
        "vi": "Một nước bị chặn bởi bộ cùng kiểu, cùng số lá và có lá cao nhất lớn hơn (xét "
        "hạng trước, rồi chất ♠ < ♣ < ♦ < ♥).",
    },
    "beat.single_suit": {
        "en": "A single must be beaten by a higher card of the same suit (2s are exempt).",
        "vi": "Lá lẻ phải bị chặn bằng lá cao hơn cùng chất (trừ heo).",
    },
    "beat.pair_colours": {
        "en": "A pair must be beaten by a pair of the same colours (2s are exempt).",
        "vi": "Đôi phải bị chặn bằng đôi cùng màu (trừ heo).",
    },
    "beat.triple_suits": {
        "en": "A triple must be beaten by a triple of the same three suits (2s exempt).",
        "vi": "Sám cô phải bị chặn bằng sám cô cùng ba chất (trừ heo).",
    },
    "beat.pair_run_colours": {
        "en": "A run of pairs must be beaten by one whose pairs have the same colours, pair by "
        "pair in rank order.",
        "vi": "Đôi thông phải bị chặn bằng đôi thông có các đôi cùng màu, từng đôi theo thứ tự.",
    },
    "beat.straight_above": {
        "en": "A straight must be beaten by one whose lowest card is above the other's highest "
        "card (6-7-8 by 9-10-J or higher).",
        "vi": "Sảnh phải bị chặn bằng sảnh có lá thấp nhất cao hơn lá cao nhất của sảnh kia "
        "(6-7-8 bị chặn bằng 9-10-J hoặc cao hơn).",
    },
    "beat.pair_run_above": {
        "en": "A run of pairs must be beaten by one whose lowest pair is above the other's "
        "highest pair.",
        "vi": "Đôi thông phải bị chặn bằng đôi thông có đôi thấp nhất cao hơn đôi cao nhất của "
        "bộ kia.",
    },
    "beat.straight_lock": {
        "en": "Once a one-suit straight is played, later straights on that pile must be "
        "one-suit too (a lock).",
        "vi": "Khi đã có sảnh đồng chất, các sảnh sau trong vòng đó cũng phải đồng chất (khoá).",
    },
    "beat.triple_on_ace": {
        "en": "Any triple may be played on a single ace.",
        "vi": "Sám cô nào cũng chặn được một lá át.",
    },
    "beat.killer": {
        "en": "The {card} beats any single card, 2s included.",
        "vi": "Lá {card} chặn được mọi lá lẻ, kể cả heo.",
    },
    "beat.killer_blue": {
        "en": "The {card} (blue back) beats any single card, 2s included.",
        "vi": "Lá {card} (lưng xanh) chặn được mọi lá lẻ, kể cả heo.",
    },
    "tie.forbid": {
        "en": "With two decks, a card cannot beat its own twin.",
        "vi": "Với hai bộ bài, một lá không chặn được lá giống hệt nó.",
    },
    "tie.later-wins": {
        "en": "With two decks, a card beats its twin when played later.",
        "vi": "Với hai bộ bài, lá đánh sau chặn được lá giống hệt nó.",
    },
    "tie.highest-distinct": {
        "en": "With two decks, twins tie; the play wins on its highest card that differs.",
        "vi": "Với hai bộ bài, hai lá giống hệt thì hoà; nước bài hơn nhờ lá cao nhất khác nhau.",
    },
    "tie.red-beats-blue": {
        "en": "With two decks, the red-backed twin beats the blue one.",
        "vi": "Với hai bộ bài, lá lưng đỏ chặn được lá lưng xanh giống hệt.",
    },
    # --- bombs ----------------------------------------------------------------------------
    "bomb.none": {
        "en": "There are no bombs: nothing beats a play of another kind.",
        "vi": "Không có bom: không gì chặn được một nước khác kiểu.",
    },
    "bomb.chopped_by": {
        "en": "{what:cap} may be chopped by {bombs}.",
        "vi": "{what:cap} có thể bị chặt bằng {bombs}.",
    },
    "bomb.beats": {"en": "{strong:cap} beats {weak}.", "vi": "{strong:cap} chặt được {weak}."},
    "bomb.ladder": {
        "en": "Bombs beat lower bombs on this ladder, strongest first: {ladder}.",
        "vi": "Bom chặt được bom thấp hơn trên thang này, mạnh nhất trước: {ladder}.",
    },
    "bomb.on_any_bomb": {
        "en": "A bomb may also be played on another bomb, whatever their kinds.",
        "vi": "Bom cũng được chặt lên bom khác, bất kể kiểu gì.",
    },
    "bomb.after": {
        "en": "After a bomb, the next play must be a higher bomb of the same kind and length.",
        "vi": "Sau một quả bom, nước tiếp theo phải là bom cao hơn cùng kiểu và cùng độ dài.",
    },
    "bomb.after_ladder": {
        "en": "After a bomb, the next play must be a higher bomb of the same kind and length "
        "(or one higher on the ladder).",
        "vi": "Sau một quả bom, nước tiếp theo phải là bom cao hơn cùng kiểu và cùng độ dài "
        "(hoặc bom ở bậc cao hơn trên thang).",
    },
    "bomb.no_lead": {
        "en": "A bomb may not be led to a fresh pile.",
        "vi": "Không được mở vòng mới bằng bom.",
    },
    # --- passing -------------------------------------------------------------------------
    "pass.locks": {
        "en": "Passing locks you out of the pile until a new one starts.",
        "vi": "Đã bỏ lượt thì không được đánh tiếp cho tới vòng mới.",
    },
    "pass.bomb_back": {
        "en": "Exception: while 2s are on top of the pile, a player who passed may come back in "
        "with {bombs}; they stay locked out after that.",
        "vi": "Ngoại lệ: khi heo đang nằm trên cùng, người đã bỏ lượt vẫn được vào lại bằng "
        "{bombs}; sau đó vẫn bị khoá.",
    },
    "pass.bomb_back_chops": {
        "en": "The same holds while a bomb played on 2s, or a bomb on such a bomb, is on top.",
        "vi": "Điều này cũng áp dụng khi trên cùng là bom đã chặt heo, hoặc bom chặt lên bom đó.",
    },
    "pass.no_bombing": {
        "en": "No bombing after passing: a passed player waits for the next pile.",
        "vi": "Đã bỏ lượt thì không được chặt: người đã bỏ lượt chờ vòng sau.",
    },
    "pass.free": {
        "en": "Passing does not lock you out: you may play again on the same pile.",
        "vi": "Bỏ lượt không bị khoá: vẫn được đánh tiếp trong cùng vòng.",
    },
    "pass.stacking": {
        "en": "Stacking: when everyone else has passed, the last player may go on playing higher "
        "combinations of the same kind and size on their own play (not bombs); the others may "
        "answer only with bombs.",
        "vi": "Chồng bài: khi mọi người khác đã bỏ lượt, người đánh cuối được đánh tiếp bộ cao "
        "hơn cùng kiểu, cùng số lá lên nước của mình (không phải bom); người khác chỉ được "
        "đáp lại bằng bom.",
    },
    "pass.wins_pile": {
        "en": "When everyone else has passed, the last player to play wins the pile and leads a "
        "fresh one; if they have gone out, the next player still in leads.",
        "vi": "Khi mọi người khác đã bỏ lượt, người đánh cuối thắng vòng và đánh trước vòng "
        "mới; nếu người đó đã về, người kế tiếp còn bài đánh trước.",
    },
    "pass.out_ends_pile": {
        "en": "When a player goes out the pile ends at once, and the next player leads.",
        "vi": "Khi có người về, vòng kết thúc ngay và người kế tiếp đánh trước.",
    },
    "pass.no_finish_on_two": {
        "en": "Your last play may not contain a 2.",
        "vi": "Nước cuối cùng không được có heo (thối 2).",
    },
    # --- before play -------------------------------------------------------------------
    "before.mutual": {
        "en": "Trading: before the first lead each player, from the leader round the table, may "
        "offer one other player a swap of the same number of cards; the other accepts or "
        "refuses.",
        "vi": "Đổi bài: trước nước đầu tiên, lần lượt từ người đánh trước, mỗi người được đề "
        "nghị một người khác đổi cùng số lá; người kia đồng ý hoặc từ chối.",
    },
    "before.san-jose": {
        "en": "San Jose trading, from the second game: the loser gives their two highest cards "
        "to the winner and, with four or more players, the second-to-last gives their highest "
        "to the second; at the same time the winner gives back two cards of their choice and "
        "the second one.",
        "vi": "Đổi bài kiểu San Jose, từ ván thứ hai: người thua đưa hai lá cao nhất cho người "
        "thắng và, khi có từ bốn người, người áp chót đưa lá cao nhất cho người về nhì; cùng "
        "lúc người thắng trả lại hai lá tự chọn và người về nhì trả lại một lá.",
    },
    "before.chop_debts": {
        "en": "Chop debts: the last player chopped in a game owes the player who chopped them "
        "{owed}, given at the next deal.",
        "vi": "Nợ chặt: người bị chặt cuối cùng trong ván nợ người đã chặt mình {owed}, trả "
        "khi chia ván sau.",
    },
    "before.loser_owes_twos": {
        "en": "The loser owes the winner one card for each 2 still in hand at the end, given at "
        "the next deal.",
        "vi": "Người thua nợ người thắng một lá cho mỗi con heo còn trên tay cuối ván, trả khi "
        "chia ván sau.",
    },
    "before.debt_card": {
        "en": "A debtor pays with {card}; the receiver gives back as many cards of their choice.",
        "vi": "Người nợ trả bằng {card}; người nhận trả lại bấy nhiêu lá tự chọn.",
    },
    "before.instant": {
        "en": "Instant win (tới trắng): a player dealt {hands} wins at once, before play.",
        "vi": "Tới trắng: người được chia {hands} thắng ngay, trước khi đánh.",
    },
    "before.no_four_twos_debtor": {
        "en": "A player who owes cards cannot claim the instant win with four 2s.",
        "vi": "Người đang nợ bài không được tới trắng bằng tứ quý heo.",
    },
    "before.instant_off": {
        "en": "Instant wins are off because trading is played.",
        "vi": "Không có tới trắng vì có đổi bài.",
    },
    # --- the end and scoring -------------------------------------------------------------
    "end.first_out": {
        "en": "The game ends as soon as the first player goes out; the others are ranked by "
        "cards left.",
        "vi": "Ván kết thúc ngay khi người đầu tiên về; những người còn lại xếp hạng theo số lá "
        "còn lại.",
    },
    "end.last_left": {
        "en": "The game goes on until one player is left holding cards: the loser.",
        "vi": "Ván tiếp tục cho tới khi chỉ còn một người giữ bài: người thua.",
    },
    "end.scoring": {
        "en": "Scoring ({scheme}): {summary}.",
        "vi": "Tính điểm ({scheme}): {summary}.",
    },
    "end.scoring_bet": {
        "en": "Scoring ({scheme}): {summary}. The bet x is {bet} points.",
        "vi": "Tính điểm ({scheme}): {summary}. Mức cược x là {bet} điểm.",
    },
    "end.cong": {
        "en": "Cóng: a player who has not played a card when someone goes out pays double.",
        "vi": "Cóng: người chưa đánh được lá nào khi có người về thì trả gấp đôi.",
    },
    "end.guarantees": {
        "en": "Guarantees (Guaransheeds): before play a player may guarantee to go out first; "
        "made good, every other player pays them 1 point (2 if they guaranteed before seeing "
        "their hand); failed, they pay every other player 2.",
        "vi": "Bảo đảm (Guaransheeds): trước khi đánh, một người được cam kết về nhất; làm "
        "được thì mỗi người khác trả họ 1 điểm (2 điểm nếu cam kết trước khi xem bài); không "
        "làm được thì họ trả mỗi người khác 2 điểm.",
    },
    "extra.twos-left": {
        "en": "Thối 2: a player left holding 2s pays the winner {x} points per black 2 and "
        "{x2} per red 2.",
        "vi": "Thối 2: người còn giữ heo cuối ván trả người thắng {x} điểm mỗi heo đen và {x2} "
        "điểm mỗi heo đỏ.",
    },
    "extra.bombs-left": {
        "en": "Thối hàng: a player left holding bombs pays the winner {run} points per run of "
        "pairs and {quad} per four of a kind.",
        "vi": "Thối hàng: người còn giữ bom cuối ván trả người thắng {run} điểm mỗi đôi thông "
        "và {quad} điểm mỗi tứ quý.",
    },
    "extra.chop-twos": {
        "en": "Chopping a 2 is paid at once by the chopped player: {x} points for a black 2 and "
        "{red_cut} for a red 2 chopped with a run of pairs, {x2} and {red_bomb} with another "
        "bomb; chopping a bomb earns double what it earned.",
        "vi": "Chặt heo được người bị chặt trả ngay: {x} điểm cho heo đen và {red_cut} điểm cho "
        "heo đỏ khi chặt bằng đôi thông, {x2} và {red_bomb} điểm khi chặt bằng bom khác; chặt "
        "một quả bom được gấp đôi số điểm quả bom đó đã được.",
    },
    "extra.three-spades-last": {
        "en": "A winner whose last play holds the 3♠ receives {x} more points from every other "
        "player.",
        "vi": "Người thắng về bằng nước có 3♠ được mỗi người khác trả thêm {x} điểm.",
    },
    "end.got_to_get_in": {
        "en": "Got to Get In: when the first player goes out, each player who has not yet "
        "played a card pays them {points} points.",
        "vi": "Got to Get In: khi người đầu tiên về, mỗi người chưa đánh lá nào trả người đó "
        "{points} điểm.",
    },
}

_FIELD = re.compile(r"\{(\w+)(?::(cap))?\}")
_OR = {"en": "or", "vi": "hoặc"}


def _word(value: Any, lang: str) -> str:
    if isinstance(value, Phrase | Join):
        return value.text(lang)
    return str(value)


def _fill(template: str, params: Mapping[str, Any], lang: str) -> str:
    def field(m: re.Match[str]) -> str:
        text = _word(params[m.group(1)], lang)
        return text[:1].upper() + text[1:] if m.group(2) == "cap" else text

    return _FIELD.sub(field, template)


def _json(value: Any) -> Any:
    return value.to_dict() if isinstance(value, Phrase | Join) else value


class Phrase(Coded):
    """A sentence or a part of one: its English text as a ``str``, with a stable ``code``
    (a key of :data:`PHRASES`) and ``params`` (:class:`~tienlen.coded.Coded`).

    >>> Phrase("comb.triple_run", n=2).text("vi")
    'Ba thông có ít nhất 2 sám cô liên tiếp.'
    """

    CATALOGUE = PHRASES

    def __new__(cls, code: str, **params: Any) -> Phrase:
        return super().__new__(cls, code, params)

    @classmethod
    def fill(cls, template: str, params: Mapping[str, Any], lang: str) -> str:
        """``template`` with ``params``: a phrase in ``lang``, ``{name:cap}`` capitalised."""
        return _fill(template, params, lang)

    def to_dict(self) -> dict[str, Any]:
        """``{"code", "params"}``, JSON-ready; a parameter that is a phrase or a list of
        them is one of these (or a :meth:`Join.to_dict`) in turn."""
        return {"code": self.code, "params": {k: _json(v) for k, v in self.params.items()}}


class Join:
    """Several phrases in one parameter: ``or`` ("a, b or c"), ``comma`` ("a, b, c") or
    ``ladder`` ("(1) a; (2) b")."""

    __slots__ = ("how", "items")

    def __init__(self, items: Sequence[Phrase], how: Literal["or", "comma", "ladder"]) -> None:
        self.items = tuple(items)
        self.how = how

    def text(self, lang: str = "en") -> str:
        """The items worded in ``lang`` and joined."""
        words = [i.text(lang) for i in self.items]
        if self.how == "comma":
            return ", ".join(words)
        if self.how == "ladder":
            return "; ".join(f"({i}) {w}" for i, w in enumerate(words, 1))
        if len(words) <= 1:
            return "".join(words)
        return ", ".join(words[:-1]) + f" {_OR.get(lang, 'or')} " + words[-1]

    def to_dict(self) -> dict[str, Any]:
        """``{"join", "items"}``, JSON-ready."""
        return {"join": self.how, "items": [i.to_dict() for i in self.items]}

    def __repr__(self) -> str:
        return f"Join({list(self.items)!r}, {self.how!r})"


def phrase_catalogue() -> dict[str, Any]:
    """The phrase templates and the word for "or", JSON-ready (``GET /api/descriptions``)."""
    return {"phrases": PHRASES, "or": _OR}


#: One line per preset, for listings (``tienlen rules``).
SUMMARIES: dict[str, Phrase] = {
    code.removeprefix("summary."): Phrase(code) for code in PHRASES if code.startswith("summary.")
}


def _rank(rank: int) -> Phrase | str:
    # The 2 has a name of its own in Vietnamese: heo.
    return Phrase("rank.two") if RANKS[rank] == "2" else RANKS[rank]


def _size(p: Pattern, unit: str) -> Phrase:
    lo, hi = p.min_size, p.max_size
    u = Phrase(f"unit.{unit}")
    if lo == 0:
        return Phrase("size.any", unit=u)
    if hi == lo:
        return Phrase("size.exactly", n=lo, unit=u)
    return Phrase("size.more", n=lo, unit=u)


def describe_pattern(text: str) -> Phrase:
    """A bomb-table pattern in words: ``"pair_run3+"`` → ``"a run of 3 or more pairs"``."""
    p = parse_pattern(text)
    top = p.top_rank

    def topped(what: Phrase) -> Phrase:
        return Phrase("pat.topped", what=what, rank=_rank(top)) if top is not None else what

    match p.kind:
        case None:
            return Phrase("pat.any")
        case "single" | "pair" | "triple" | "quad" if top is not None:
            return Phrase(f"pat.{p.kind}_of", rank=_rank(top))
        case "single" | "pair" | "triple" | "quad":
            return Phrase(f"pat.{p.kind}")
        case "straight":
            size = None if p.min_size == 0 else _size(p, "card")
            if size is None:
                if top is None:
                    return Phrase("pat.straight")
                return Phrase("pat.straight_end", rank=_rank(top))
            if top is None:
                return Phrase("pat.straight_of", size=size)
            return Phrase("pat.straight_of_end", size=size, rank=_rank(top))
        case "pair_run" | "triple_run":
            return topped(Phrase(f"pat.{p.kind}", size=_size(p, p.kind)))
        case "quad_run":
            if p.min_size == 0:
                return topped(Phrase("pat.quad_run"))
            return topped(_size(p, "consecutive quad"))
        case "multi_quad":
            if p.min_size == 0:
                return Phrase("pat.multi_quad")
            return Phrase("pat.quads_together", size=_size(p, "quad"))
        case "dragon":
            return Phrase("pat.dragon")
        case _:
            return Phrase("pat.raw", text=text)


def rules_sections(rules: Rules) -> list[tuple[Phrase, list[Phrase]]]:
    """The explanation as ``(heading, sentences)`` sections."""
    return [
        (Phrase("head.deal"), _deal(rules)),
        (Phrase("head.start"), _start(rules)),
        (Phrase("head.combinations"), _combinations(rules)),
        (Phrase("head.beating"), _beating(rules)),
        (Phrase("head.bombs"), _bombs(rules)),
        (Phrase("head.passing"), _passing(rules)),
        (Phrase("head.before"), _before_play(rules)),
        (Phrase("head.ending"), _ending(rules)),
    ]


def describe_rules(rules: Rules, *, width: int = 88) -> str:
    """The rules in plain words: a title, then bulleted sections."""
    import textwrap

    title = rules.name
    if rules.name in SUMMARIES:
        # The summary describes the preset itself: a changed value keeps only its name.
        title += f": {SUMMARIES[rules.name]}" if rules.is_preset else " (changed from the preset)"
    lines = [title, ""]
    for heading, sentences in rules_sections(rules):
        if not sentences:
            continue
        lines.append(heading)
        for s in sentences:
            lines.extend(
                textwrap.wrap(s, width=width, initial_indent="  - ", subsequent_indent="    ")
            )
        lines.append("")
    return "\n".join(lines).rstrip() + "\n"


def describe_differences(a: Rules, b: Rules) -> list[str]:
    """One line per knob on which ``a`` and ``b`` differ, in the words :func:`rules_sections`
    uses: what ``a``'s explanation says on that point, then ``→`` and what ``b``'s says.

    A knob's words are the sentences that change when only that knob is switched to the
    other value (in ``a``'s rules, else in ``b``'s where ``a`` cannot take it); a knob that
    changes no sentence (a double-deck tie rule with one deck) is shown by its own words
    (:attr:`~tienlen.knobs.Knob.description`) and its values."""
    lines = []
    for knob in KNOBS:
        if knob.name == "name":
            continue
        old, new = getattr(a, knob.name), getattr(b, knob.name)
        if old == new:
            continue
        words = _knob_words(a, knob.name, new) or _flip(_knob_words(b, knob.name, old))
        if words is None:
            what = Phrase(knob.description)
            lines.append(f"{knob.name}: {what}: {_value_words(old)} → {_value_words(new)}")
        else:
            lines.append(f"{knob.name}: {_trim(*words)}")
    return lines


def _knob_words(rules: Rules, knob: str, value: Any) -> tuple[str, str] | None:
    """The sentences of ``rules`` that switching ``knob`` to ``value`` takes away and adds."""
    try:
        other = dataclasses.replace(rules, **{knob: value})
    except ValueError:
        return None
    before, after = _sentences(rules), _sentences(other)
    gone = " ".join(s for s in before if s not in after)
    added = " ".join(s for s in after if s not in before)
    return (gone, added) if gone or added else None


def _flip(words: tuple[str, str] | None) -> tuple[str, str] | None:
    return (words[1], words[0]) if words else None


def _sentences(rules: Rules) -> list[str]:
    return [s for _, sentences in rules_sections(rules) for s in sentences]


def _value_words(value: Any) -> str:
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, tuple):
        return ", ".join(_value_words(v) for v in value) if value else "none"
    return "none" if value is None else str(value)


#: Words of context kept on each side of a change.
_CONTEXT = 3


def _trim(old: str, new: str) -> str:
    """``old → new`` with the words both share at the start and the end cut to a little
    context (``…``); a side with nothing to say reads "(no such rule)"."""
    if not old or not new:
        return f"{old or '(no such rule)'} → {new or '(no such rule)'}"
    x, y = old.split(), new.split()
    head = 0
    while head < min(len(x), len(y)) and x[head] == y[head]:
        head += 1
    tail = 0
    while tail < min(len(x), len(y)) - head and x[-1 - tail] == y[-1 - tail]:
        tail += 1

    def cut(words: list[str]) -> str:
        start = max(0, head - _CONTEXT)
        end = len(words) - max(0, tail - _CONTEXT)
        text = " ".join(words[start:end])
        return ("…" if start else "") + text + ("…" if end < len(words) else "")

    return f"{cut(x)} → {cut(y)}"


# --- sections --------------------------------------------------------------------------
def _kind(k: str) -> Phrase:
    return Phrase(f"kind.{k}")


def _patterns(patterns: Sequence[str]) -> Join:
    return Join([describe_pattern(b) for b in patterns], "or")


def _deal(r: Rules) -> list[Phrase]:
    out: list[Phrase] = []
    deck = Phrase("deck.one" if r.decks == 1 else "deck.two")
    out.append(
        Phrase(
            "deal.players",
            players=r.players,
            deck=deck,
            direction=Phrase(f"direction.{r.direction}"),
        )
    )
    if r.deal_four_hands:
        out.append(Phrase("deal.four_hands"))
    else:
        size = r.cards_per_hand
        spare = r.spare_cards
        code = "deal.each" + ("_all" if r.hand_size == "all" else "")
        few = r.few_players_hand_size
        if few is not None and r.players >= 4:
            out.append(Phrase(code + "_few", size=size, few=few))
        else:
            out.append(Phrase(code, size=size))
        if spare == 1 and r.starter_takes_spare:
            out.append(Phrase("deal.spare_to_leader"))
        elif spare:
            out.append(Phrase("deal.spare_aside", spare=spare))
        elif r.starter_takes_spare:
            out.append(Phrase("deal.spare_if_one"))
    out.append(Phrase("deal.dealer"))
    if r.redeal_four_twos:
        out.append(Phrase("deal.redeal_four_twos"))
    if r.hidden_counts:
        out.append(Phrase("deal.hidden_counts"))
    return out


def _start(r: Rules) -> list[Phrase]:
    out = [Phrase(f"start.{r.first_lead}")]
    if r.first_lead_kinds:
        out.append(Phrase("start.kinds", kinds=Join([_kind(k) for k in r.first_lead_kinds], "or")))
    if r.opening_bombs:
        out.append(Phrase("start.opening_bombs", bombs=_patterns(r.opening_bombs)))
    later = "start.later_winner" if r.later_leads == "winner" else "start.later_same"
    return [*out, Phrase(later)]


def _combinations(r: Rules) -> list[Phrase]:
    kinds = [k for k in KINDS if k in r.kinds]
    out = [Phrase("comb.plays", kinds=Join([_kind(k) for k in kinds], "comma"))]
    two = "top_two" if r.twos_in_straight == "top" else "no_two"
    out.append(Phrase(f"comb.straight_{two}", n=r.min_straight))
    two = "top_two" if r.twos_in_pair_run == "top" else "no_two"
    out.append(Phrase(f"comb.pair_run_{two}", n=r.min_pair_run))
    if r.pair_run_one_colour:
        out.append(Phrase("comb.pair_run_colour"))
    if "triple_run" in r.kinds:
        out.append(Phrase("comb.triple_run", n=r.min_triple_run))
    if "quad_run" in r.kinds:
        out.append(Phrase("comb.quad_run", n=r.min_quad_run))
    if "multi_quad" in r.kinds:
        out.append(Phrase("comb.multi_quad", n=r.min_quad_run))
    if "dragon" in r.kinds:
        out.append(Phrase("comb.dragon"))
    return out


def _beating(r: Rules) -> list[Phrase]:
    flags = (
        ("single_same_suit", "beat.single_suit"),
        ("pair_same_colours", "beat.pair_colours"),
        ("triple_same_suits", "beat.triple_suits"),
        ("pair_run_same_colours", "beat.pair_run_colours"),
        ("straight_above", "beat.straight_above"),
        ("pair_run_above", "beat.pair_run_above"),
        ("straight_lock", "beat.straight_lock"),
        ("triple_beats_ace", "beat.triple_on_ace"),
    )
    out = [Phrase("beat.same_kind")]
    out += [Phrase(code) for knob, code in flags if getattr(r, knob)]
    if r.single_killer:
        card = Card.parse(r.single_killer)
        blue = r.decks == 2 and card.copy == 0
        out.append(Phrase("beat.killer_blue" if blue else "beat.killer", card=str(card)))
    if r.decks == 2:
        out.append(Phrase(f"tie.{r.tie_rule}"))
    return out


def _bombs(r: Rules) -> list[Phrase]:
    out: list[Phrase] = []
    by_target: dict[str, list[str]] = {}
    for target, bomb in r.chops:
        by_target.setdefault(target, []).append(bomb)
    if not by_target and not r.bomb_ladder:
        return [Phrase("bomb.none")]
    ladder = list(r.bomb_ladder)
    merged: dict[tuple[str, ...], list[str]] = {}
    for target, target_bombs in by_target.items():
        merged.setdefault(tuple(target_bombs), []).append(target)
    for bombs, targets in merged.items():
        rungs = sorted(ladder.index(b) for b in bombs) if set(bombs) <= set(ladder) else []
        words: Phrase | Join
        if len(rungs) > 2 and rungs == list(range(rungs[0], rungs[-1] + 1)):
            words = Phrase("bomb.rungs", low=rungs[0] + 1, high=rungs[-1] + 1)
        else:
            words = _patterns(bombs)
        out.append(Phrase("bomb.chopped_by", what=_patterns(targets), bombs=words))
    if ladder:
        rungs_words = [describe_pattern(p) for p in ladder]
        if len(rungs_words) == 2:
            out.append(Phrase("bomb.beats", strong=rungs_words[0], weak=rungs_words[1]))
        else:
            out.append(Phrase("bomb.ladder", ladder=Join(rungs_words, "ladder")))
    if any(t == "*" for t, _ in r.chops):
        out.append(Phrase("bomb.on_any_bomb"))
    else:
        out.append(Phrase("bomb.after_ladder" if r.bomb_ladder else "bomb.after"))
    if not r.bombs_may_lead:
        out.append(Phrase("bomb.no_lead"))
    return out


def _passing(r: Rules) -> list[Phrase]:
    out: list[Phrase] = []
    if r.pass_locks:
        out.append(Phrase("pass.locks"))
        if r.after_pass_bombs:
            bombs = (
                Phrase("bomb.any")
                if r.after_pass_bombs == ("*",)
                else _patterns(r.after_pass_bombs)
            )
            out.append(Phrase("pass.bomb_back", bombs=bombs))
            if r.after_pass_on_chops:
                out.append(Phrase("pass.bomb_back_chops"))
        else:
            out.append(Phrase("pass.no_bombing"))
    else:
        out.append(Phrase("pass.free"))
    if r.stacking:
        out.append(Phrase("pass.stacking"))
    out.append(Phrase("pass.wins_pile"))
    if r.out_ends_pile:
        out.append(Phrase("pass.out_ends_pile"))
    if not r.may_finish_on_two:
        out.append(Phrase("pass.no_finish_on_two"))
    return out


def _before_play(r: Rules) -> list[Phrase]:
    out: list[Phrase] = []
    if r.trading != "none":
        out.append(Phrase(f"before.{r.trading}"))
    debts = r.chop_debts != "none" or r.loser_owes_twos
    if r.chop_debts != "none":
        out.append(Phrase("before.chop_debts", owed=Phrase(f"owed.{r.chop_debts}")))
    if r.loser_owes_twos:
        out.append(Phrase("before.loser_owes_twos"))
    if debts:
        out.append(Phrase("before.debt_card", card=Phrase(f"debtcard.{r.debt_card}")))
    if r.instant_wins and r.trading == "none":
        hands = Join([Phrase(f"instant.{w}") for w in r.instant_wins], "or")
        out.append(Phrase("before.instant", hands=hands))
        if debts and "four-twos" in r.instant_wins:
            out.append(Phrase("before.no_four_twos_debtor"))
    elif r.instant_wins:
        out.append(Phrase("before.instant_off"))
    return out


def _ending(r: Rules) -> list[Phrase]:
    out = [Phrase("end.first_out" if r.end_at_first_out else "end.last_left")]
    scheme = SCHEMES[r.scoring]
    summary = Phrase(f"scheme.{scheme.name}")
    x = PROPLAY_BET
    if r.scoring == "proplay":
        out.append(Phrase("end.scoring_bet", scheme=scheme.name, summary=summary, bet=x))
    else:
        out.append(Phrase("end.scoring", scheme=scheme.name, summary=summary))
    if r.cong and r.scoring in ("stake", "scorepad", "per-card"):
        out.append(Phrase("end.cong"))
    if r.guarantees:
        out.append(Phrase("end.guarantees"))
    amounts: dict[str, dict[str, int]] = {
        "twos-left": {"x": x, "x2": 2 * x},
        "bombs-left": {"run": 3 * x // 2, "quad": 3 * x},
        "chop-twos": {"x": x, "red_cut": 3 * x // 2, "x2": 2 * x, "red_bomb": 3 * x},
        "three-spades-last": {"x": x},
    }
    out += [Phrase(f"extra.{e}", **amounts[e]) for e in dict.fromkeys(r.score_extras)]
    if r.got_to_get_in:
        out.append(Phrase("end.got_to_get_in", points=r.got_to_get_in))
    return out
