// The page's words in English and Vietnamese. The engine's reasons are worded from the
// server's catalogue (/api/reasons, the tables of tienlen.reasons), not from here.

export const WORDS = {
  en: {
    "app.title": "Tiến Lên",
    "nav.lobby": "Lobby", "nav.rules": "Rules", "nav.leaderboard": "Leaderboard",
    "nav.mine": "My games", "nav.pad": "Score pad", "lang.switch": "Tiếng Việt",
    "guest.prompt": "Your name at the table", "guest.go": "Enter",
    "lobby.open": "Open tables", "lobby.none": "No open table yet: create one.", "lobby.more": "More tables",
    "lobby.create": "Create a table", "lobby.preset": "Rule set", "lobby.bots": "Bots",
    "lobby.players": "Players", "lobby.games": "Games in the match", "lobby.target": "Or play to points",
    "lobby.timer": "Turn timer (seconds, 0: off)", "lobby.private": "Private (invite only)",
    "lobby.options": "More rules", "lobby.about": "These rules in words", "lobby.make": "Create", "lobby.join": "Join",
    "lobby.watch": "Watch", "lobby.seats": "Seats", "lobby.status": "Status",
    "status.waiting": "waiting", "status.playing": "playing", "status.finished": "finished",
    "table.invite": "Invite link", "table.copy": "Copy", "table.copied": "Copied",
    "table.sit": "Sit here", "table.stand": "Leave seat", "table.start": "Start",
    "table.rematch": "Rematch", "table.play": "Play", "table.pass": "Pass", "table.hint": "Hint",
    "table.clear": "Clear", "table.hand": "Your hand", "table.group": "Group", "table.give": "Give",
    "table.offer": "Offer", "table.nooffer": "No trade", "table.accept": "Accept",
    "table.refuse": "Refuse", "table.partner": "Partner", "table.take": "Cards you want",
    "table.yourturn": "Your turn", "table.turnof": "{name}'s turn", "table.cards": "{n} cards", "table.cards.one": "1 card", "table.hidden": "? cards", "table.ask": "ask",
    "table.passed": "passed", "table.botlevel": "bot: {level}",
    "table.botfor": "bot playing for {name}", "table.you": "you", "table.host": "host",
    "table.place": "#{n}", "table.pile": "Pile", "table.lead": "{name} leads",
    "table.legal": "Legal plays with your selection", "table.nolegal": "No legal play holds these cards",
    "table.waiting": "Waiting for the host to start", "table.spectator": "You are watching",
    "table.game": "Game {n}", "table.match": "Match {n}", "table.seconds": "{n} s",
    "table.result": "Game {n}: finishing order and payments", "table.standings": "Standings",
    "table.matchover": "The match is over", "table.hands": "Every hand",
    "table.chat": "Chat", "table.say": "Say", "table.log": "Moves",
    "table.givehelp": "Choose {n} cards to give", "table.givehelp.one": "Choose 1 card to give", "table.tradehelp": "Offer a trade, or none",
    "table.offered": "{name} offers {give} for {take}", "table.replay": "Replay",
    "table.shortcuts": "Keys: P play, X pass, H hint, Esc clear, G group",
    "conn.lost": "Connection lost: reconnecting…", "conn.back": "Connected again",
    "log.play": "{name}: {cards}", "log.pass": "{name} passes", "log.sit": "{name} sits in seat {n}",
    "log.stand": "{name} leaves", "log.deal": "Game {n} is dealt", "log.away": "{name} is away: a bot plays for them",
    "log.back": "{name} is back", "log.timeout": "{name} ran out of time",
    "log.give": "{name} gives {cards}", "log.offer": "{name} offers a trade to {partner}",
    "log.accept": "{name} accepts the trade", "log.refuse": "{name} refuses the trade",
    "log.ask": "{name} asks {partner}: {n} cards", "log.ask.one": "{name} asks {partner}: 1 card",
    "log.start": "The match begins", "log.gameover": "Game {n} is over",
    "log.matchover": "The match is over", "log.closed": "The table was closed: only bots played, and nobody watched", "log.chop": "{name} chops {victim}!",
    "log.chopheo": "{name} chops {victim}'s 2 (chặt heo)!", "log.instant": "Instant win (tới trắng): {how}",
    "result.order": "Place", "result.player": "Player", "result.delta": "Points", "result.total": "Total",
    "kind.single": "single", "kind.pair": "pair", "kind.triple": "triple", "kind.quad": "four of a kind (tứ quý)",
    "kind.straight": "straight", "kind.pair_run": "run of pairs (đôi thông)", "kind.triple_run": "run of triples",
    "kind.quad_run": "consecutive quads", "kind.multi_quad": "quads together", "kind.dragon": "dragon",
    "kind.pass": "pass", "kind.give": "give",
    "suit.s": "spades", "suit.c": "clubs", "suit.d": "diamonds", "suit.h": "hearts",
    "card.name": "{rank} of {suit}", "card.back": "a face-down card",
    "game.title": "Game {id}", "game.prev": "Back", "game.next": "Forward", "game.start": "Start",
    "game.end": "End", "game.move": "Move {n} of {total}", "game.seed": "Seed",
    "player.title": "Player {name}", "player.games": "Finished games", "player.none": "No finished game yet.",
    "player.place": "Place", "player.rules": "Rules", "player.when": "When", "player.delta": "Points",
    "board.title": "Leaderboard", "board.rules": "Rule set", "board.rating": "Rating",
    "board.games": "Games", "board.none": "Nobody is rated under these rules yet.",
    "rules.title": "The rule sets",
    "pad.title": "Score pad", "pad.intro": "Playing with a real deck? Keep the score here: the server scores every game with the engine's own rules.",
    "pad.name": "Player {n}", "pad.code": "Or a rules code", "pad.create": "Start the pad",
    "pad.link": "Share this link", "pad.rules": "Rules: {rules} (scoring: {scoring})",
    "pad.games": "Games", "pad.nogames": "No game entered yet.", "pad.add": "Game {n}",
    "pad.order": "Finishing order", "pad.place": "Place {n}", "pad.cardsleft": "Cards held when the first player went out",
    "pad.cong": "Cóng (had not played a card when the first player went out)", "pad.hands": "Cards left at the end (e.g. 2h 2c)",
    "pad.chops": "Chops", "pad.addchop": "Add a chop", "pad.chopby": "Chopper", "pad.chopof": "Chopped",
    "pad.chopcut": "with a run of pairs (đôi thông)", "pad.redtwos": "Red 2s chopped", "pad.blacktwos": "Black 2s chopped",
    "pad.chopon": "On the bomb of chop", "pad.chopn": "chop {n}",
    "pad.threespades": "The winner went out with the 3♠", "pad.instant": "Instant win (tới trắng)",
    "pad.save": "Add the game", "pad.delete": "Delete game {n}",
    "pad.guarantees": "Guarantees (to go out first)", "pad.noguarantee": "none",
    "pad.guarantee": "guaranteed", "pad.blind": "guaranteed blind",
    "error.generic": "Refused: {message}",
    "error.try_again": "That could not be saved just now (the server cannot reach its database): try again in a moment.",
    "error.unavailable": "That could not reach the server running this table just now (it is changing servers): try again in a moment.",
    "error.moved": "This table has just moved to another server: try again.",
    "table.lastcard": "one card left", "table.bao": "last card!", "table.offline": "offline",
    "table.botplays": "bot is playing", "table.noselection": "No cards selected: tap cards in your hand first",
    "table.youlead": "You lead: play any combination", "table.waitrematch": "The host may start a rematch",
    "table.continue": "Continue", "table.sound": "Sounds", "table.more": "Moves & chat",
    "table.newchat": "new chat", "table.close": "Close",
    "note.hint": "Hint: {kind} {cards}", "note.hintpass": "Hint: pass",
    "log.offline": "{name} went offline", "banner.chop": "{name} chops {victim}!",
    "banner.chopheo": "Chặt heo! {name} chops {victim}'s 2",
    "bot.seat": "Bot {n}",
    "preset.standard": "Standard", "preset.wikipedia": "Wikipedia's rules", "preset.pagat": "Pagat's rules",
    "preset.pang": "Pang's rules", "preset.lu": "Lu's rules", "preset.vietcong": "Viet Cong (house rules)",
    "preset.suited": "Suited runs", "preset.hawaii": "Hawaii", "preset.akita": "Akita", "preset.pike": "Pike",
    "preset.proplay": "Pro-Play", "preset.double-deck-13": "Two decks, 13 cards",
    "lobby.playnow": "Play now", "lobby.playnowhelp": "A table of your own with three bots, dealt at once",
    "lobby.level": "Bot level", "lobby.rules": "Rules", "lobby.name": "Your name",
    "lobby.timerhelp": "0: no timer. Left empty: {n} s once two or more people play",
    "lobby.players.n": "{n} players", "lobby.as": "Playing as {name}",
    "lobby.needname": "Give your name first", "lobby.ruleoff": "None of these",
    "lobby.timerauto": "auto",
    "pad.readonly": "You are looking at this pad. Give your name to add or delete games.",
    "pad.join": "Add games", "pad.needplace": "Choose who finished in place {n}",
    "pad.selfchop": "{name} cannot chop their own play",
    "nav.puzzles": "Puzzles",
    "analysis.title": "Analysis", "analysis.analyse": "Analyse",
    "analysis.progress": "Analysing: {done} of {total} decisions",
    "analysis.best": "best: {play}", "analysis.lost": "{n}% of the win lost",
    "analysis.curve": "Each player's win probability over the game",
    "analysis.player": "Player", "analysis.accuracy": "Accuracy",
    "label.best": "best", "label.good": "good", "label.inaccuracy": "inaccuracy",
    "label.mistake": "mistake", "label.blunder": "blunder",
    "puzzle.title": "Puzzle {id}", "puzzle.easy": "easy", "puzzle.medium": "medium", "puzzle.hard": "hard",
    "puzzle.first": "Every hand is face up. Find the play that makes {seat} go out first, whatever the others do.",
    "puzzle.ahead": "Every hand is face up. Find the play that makes {seat} go out before the other player left, whatever they do.",
    "puzzle.right": "Right: {play} forces it.", "puzzle.wrong": "Not this one: the play that forces it is {play}.",
    "puzzle.line": "A winning line:", "puzzle.rating": "Your puzzle rating: {n}", "puzzle.next": "Next puzzle",
  },
  vi: {
    "app.title": "Tiến Lên",
    "nav.lobby": "Phòng chờ", "nav.rules": "Luật chơi", "nav.leaderboard": "Bảng xếp hạng",
    "nav.mine": "Ván của tôi", "nav.pad": "Sổ điểm", "lang.switch": "English",
    "guest.prompt": "Tên của bạn", "guest.go": "Vào",
    "lobby.open": "Bàn đang mở", "lobby.none": "Chưa có bàn nào: hãy tạo một bàn.", "lobby.more": "Thêm bàn",
    "lobby.create": "Tạo bàn", "lobby.preset": "Bộ luật", "lobby.bots": "Máy",
    "lobby.players": "Số người", "lobby.games": "Số ván", "lobby.target": "Hoặc chơi tới số điểm",
    "lobby.timer": "Giờ mỗi lượt (giây, 0: tắt)", "lobby.private": "Bàn riêng (cần lời mời)",
    "lobby.options": "Luật thêm", "lobby.about": "Giải thích bộ luật này", "lobby.make": "Tạo", "lobby.join": "Vào bàn",
    "lobby.watch": "Xem", "lobby.seats": "Ghế", "lobby.status": "Trạng thái",
    "status.waiting": "đang chờ", "status.playing": "đang chơi", "status.finished": "đã xong",
    "table.invite": "Lời mời", "table.copy": "Chép", "table.copied": "Đã chép",
    "table.sit": "Ngồi đây", "table.stand": "Rời ghế", "table.start": "Bắt đầu",
    "table.rematch": "Chơi lại", "table.play": "Đánh", "table.pass": "Bỏ lượt", "table.hint": "Gợi ý",
    "table.clear": "Bỏ chọn", "table.hand": "Bài của bạn", "table.group": "Xếp bài", "table.give": "Đưa bài",
    "table.offer": "Đề nghị đổi", "table.nooffer": "Không đổi", "table.accept": "Đồng ý",
    "table.refuse": "Từ chối", "table.partner": "Đổi với", "table.take": "Lá bạn muốn lấy",
    "table.yourturn": "Đến lượt bạn", "table.turnof": "Lượt của {name}", "table.cards": "{n} lá", "table.hidden": "? lá", "table.ask": "hỏi",
    "table.passed": "bỏ lượt", "table.botlevel": "máy: {level}",
    "table.botfor": "máy đánh thay {name}", "table.you": "bạn", "table.host": "chủ bàn",
    "table.place": "về {n}", "table.pile": "Trên bàn", "table.lead": "{name} đánh trước",
    "table.legal": "Các nước đánh được với lá đã chọn", "table.nolegal": "Không nước nào có các lá này",
    "table.waiting": "Đang chờ chủ bàn bắt đầu", "table.spectator": "Bạn đang xem",
    "table.game": "Ván {n}", "table.match": "Trận {n}", "table.seconds": "{n} giây",
    "table.result": "Ván {n}: thứ tự về và điểm", "table.standings": "Bảng điểm",
    "table.matchover": "Trận đấu đã kết thúc", "table.hands": "Bài của mọi người",
    "table.chat": "Trò chuyện", "table.say": "Gửi", "table.log": "Các nước đi",
    "table.givehelp": "Chọn {n} lá để đưa", "table.tradehelp": "Đề nghị đổi bài, hoặc không",
    "table.offered": "{name} đề nghị đưa {give} lấy {take}", "table.replay": "Xem lại",
    "table.shortcuts": "Phím: P đánh, X bỏ lượt, H gợi ý, Esc bỏ chọn, G xếp bài",
    "conn.lost": "Mất kết nối: đang kết nối lại…", "conn.back": "Đã kết nối lại",
    "log.play": "{name}: {cards}", "log.pass": "{name} bỏ lượt", "log.sit": "{name} ngồi ghế {n}",
    "log.stand": "{name} rời ghế", "log.deal": "Chia bài ván {n}", "log.away": "{name} vắng mặt: máy đánh thay",
    "log.back": "{name} đã trở lại", "log.timeout": "{name} hết giờ",
    "log.give": "{name} đưa {cards}", "log.offer": "{name} đề nghị đổi bài với {partner}",
    "log.accept": "{name} đồng ý đổi", "log.refuse": "{name} từ chối đổi",
    "log.ask": "{name} hỏi {partner}: {n} lá",
    "log.start": "Trận đấu bắt đầu", "log.gameover": "Hết ván {n}",
    "log.matchover": "Hết trận", "log.closed": "Bàn đã đóng: chỉ có máy chơi và không ai xem", "log.chop": "{name} chặt {victim}!",
    "log.chopheo": "{name} chặt heo của {victim}!", "log.instant": "Tới trắng: {how}",
    "result.order": "Về", "result.player": "Người chơi", "result.delta": "Điểm", "result.total": "Tổng",
    "kind.single": "lẻ", "kind.pair": "đôi", "kind.triple": "sám cô", "kind.quad": "tứ quý",
    "kind.straight": "sảnh", "kind.pair_run": "đôi thông", "kind.triple_run": "ba thông",
    "kind.quad_run": "tứ quý liên tiếp", "kind.multi_quad": "nhiều tứ quý", "kind.dragon": "sảnh rồng",
    "kind.pass": "bỏ lượt", "kind.give": "đưa bài",
    "suit.s": "bích", "suit.c": "chuồn", "suit.d": "rô", "suit.h": "cơ",
    "card.name": "{rank} {suit}", "card.back": "lá úp",
    "game.title": "Ván {id}", "game.prev": "Lùi", "game.next": "Tới", "game.start": "Đầu",
    "game.end": "Cuối", "game.move": "Nước {n} / {total}", "game.seed": "Hạt giống",
    "player.title": "Người chơi {name}", "player.games": "Các ván đã xong", "player.none": "Chưa có ván nào.",
    "player.place": "Về", "player.rules": "Luật", "player.when": "Lúc", "player.delta": "Điểm",
    "board.title": "Bảng xếp hạng", "board.rules": "Bộ luật", "board.rating": "Hệ số",
    "board.games": "Số ván", "board.none": "Chưa ai được xếp hạng với luật này.",
    "rules.title": "Các bộ luật",
    "pad.title": "Sổ điểm", "pad.intro": "Chơi bằng bộ bài thật? Ghi điểm ở đây: máy chủ tính điểm từng ván theo đúng luật của trò chơi.",
    "pad.name": "Người chơi {n}", "pad.code": "Hoặc mã luật", "pad.create": "Mở sổ điểm",
    "pad.link": "Chia sẻ đường dẫn này", "pad.rules": "Luật: {rules} (cách tính điểm: {scoring})",
    "pad.games": "Các ván", "pad.nogames": "Chưa ghi ván nào.", "pad.add": "Ván {n}",
    "pad.order": "Thứ tự về", "pad.place": "Về {n}", "pad.cardsleft": "Số lá còn lại khi người đầu tiên về",
    "pad.cong": "Cóng (chưa đánh lá nào khi người đầu tiên về)", "pad.hands": "Bài còn lại cuối ván (vd. 2h 2c)",
    "pad.chops": "Chặt", "pad.addchop": "Thêm một lần chặt", "pad.chopby": "Người chặt", "pad.chopof": "Bị chặt",
    "pad.chopcut": "bằng đôi thông", "pad.redtwos": "Số heo đỏ bị chặt", "pad.blacktwos": "Số heo đen bị chặt",
    "pad.chopon": "Chặt lại lần chặt", "pad.chopn": "lần {n}",
    "pad.threespades": "Người thắng về bằng 3♠", "pad.instant": "Tới trắng",
    "pad.save": "Ghi ván", "pad.delete": "Xoá ván {n}",
    "pad.guarantees": "Cam kết về nhất", "pad.noguarantee": "không",
    "pad.guarantee": "có cam kết", "pad.blind": "cam kết khi chưa xem bài",
    "error.generic": "Không được: {message}",
    "error.try_again": "Chưa lưu được (máy chủ không kết nối được cơ sở dữ liệu): hãy thử lại sau giây lát.",
    "error.unavailable": "Chưa tới được máy chủ đang chạy bàn này (bàn đang chuyển máy chủ): hãy thử lại sau giây lát.",
    "error.moved": "Bàn vừa chuyển sang máy chủ khác: hãy thử lại.",
    "table.lastcard": "còn một lá", "table.bao": "báo!", "table.offline": "mất kết nối",
    "table.botplays": "máy đang đánh thay", "table.noselection": "Chưa chọn lá nào: hãy chạm vào bài của bạn",
    "table.youlead": "Bạn đánh trước: đánh bộ nào cũng được", "table.waitrematch": "Chủ bàn có thể cho chơi lại",
    "table.continue": "Tiếp tục", "table.sound": "Âm thanh", "table.more": "Nước đi & trò chuyện",
    "table.newchat": "tin nhắn mới", "table.close": "Đóng",
    "note.hint": "Gợi ý: {kind} {cards}", "note.hintpass": "Gợi ý: bỏ lượt",
    "log.offline": "{name} mất kết nối", "banner.chop": "{name} chặt {victim}!",
    "banner.chopheo": "Chặt heo! {name} chặt heo của {victim}",
    "bot.seat": "Máy {n}",
    "preset.standard": "Tiêu chuẩn", "preset.wikipedia": "Luật Wikipedia", "preset.pagat": "Luật Pagat",
    "preset.pang": "Luật Pang", "preset.lu": "Luật Lu", "preset.vietcong": "Viet Cong (luật nhà)",
    "preset.suited": "Sảnh đồng chất", "preset.hawaii": "Hawaii", "preset.akita": "Akita", "preset.pike": "Pike",
    "preset.proplay": "Pro-Play", "preset.double-deck-13": "Hai bộ bài, 13 lá",
    "lobby.playnow": "Chơi ngay", "lobby.playnowhelp": "Một bàn riêng với ba máy, chia bài ngay",
    "lobby.level": "Mức của máy", "lobby.rules": "Luật", "lobby.name": "Tên của bạn",
    "lobby.timerhelp": "0: không tính giờ. Để trống: {n} giây khi có từ hai người chơi",
    "lobby.players.n": "{n} người", "lobby.as": "Bạn chơi với tên {name}",
    "lobby.needname": "Hãy nhập tên trước", "lobby.ruleoff": "Không áp dụng",
    "lobby.timerauto": "tự động",
    "pad.readonly": "Bạn đang xem sổ điểm này. Nhập tên để ghi hoặc xoá ván.",
    "pad.join": "Ghi ván", "pad.needplace": "Hãy chọn người về thứ {n}",
    "pad.selfchop": "{name} không thể tự chặt bài của mình",
    "nav.puzzles": "Câu đố",
    "analysis.title": "Phân tích", "analysis.analyse": "Phân tích ván",
    "analysis.progress": "Đang phân tích: {done} / {total} quyết định",
    "analysis.best": "tốt nhất: {play}", "analysis.lost": "mất {n}% khả năng thắng",
    "analysis.curve": "Khả năng thắng của mỗi người qua ván",
    "analysis.player": "Người chơi", "analysis.accuracy": "Độ chính xác",
    "label.best": "tốt nhất", "label.good": "tốt", "label.inaccuracy": "thiếu chính xác",
    "label.mistake": "sai lầm", "label.blunder": "sai lầm lớn",
    "puzzle.title": "Câu đố {id}", "puzzle.easy": "dễ", "puzzle.medium": "vừa", "puzzle.hard": "khó",
    "puzzle.first": "Mọi bài đều lật ngửa. Tìm nước đi giúp {seat} hết bài đầu tiên, dù những người khác đánh thế nào.",
    "puzzle.ahead": "Mọi bài đều lật ngửa. Tìm nước đi giúp {seat} hết bài trước người còn lại, dù người đó đánh thế nào.",
    "puzzle.right": "Đúng: {play} buộc thắng.", "puzzle.wrong": "Chưa đúng: nước buộc thắng là {play}.",
    "puzzle.line": "Một đường thắng:", "puzzle.rating": "Điểm giải đố của bạn: {n}", "puzzle.next": "Câu đố tiếp theo",
  },
};

const KEY = "tienlen.lang";

/** The language in use: the remembered choice, else the browser's, else English. */
export function lang() {
  const saved = localStorage.getItem(KEY);
  if (saved === "en" || saved === "vi") return saved;
  return (navigator.language || "").toLowerCase().startsWith("vi") ? "vi" : "en";
}

/** Switch language (remembered) and tell the page. */
export function setLang(code) {
  localStorage.setItem(KEY, code);
  document.documentElement.lang = code;
  window.dispatchEvent(new Event("tienlen-lang"));
}

/** Fill a template's {names} from params. */
export function fill(template, params = {}) {
  return template.replace(/\{(\w+)\}/g, (m, k) => (k in params ? String(params[k]) : m));
}

/** The interface's word for key in the language in use; when params.n is 1, the key's
 *  ".one" form where the language has one ("1 card", not "1 cards"). */
export function t(key, params = {}) {
  const words = WORDS[lang()];
  const one = params.n === 1 ? words[`${key}.one`] : undefined;
  return fill(one ?? words[key] ?? WORDS.en[key] ?? key, params);
}

/** Set every [data-i18n] element's text under root. */
export function translate(root = document) {
  for (const el of root.querySelectorAll("[data-i18n]")) el.textContent = t(el.dataset.i18n);
}

let levels = null;

/** The bot levels, weakest first (tienlen.players.levels, /api/levels), fetched once. */
export async function loadLevels() {
  if (levels === null) {
    try {
      const r = await fetch("/api/levels");
      levels = r.ok ? await r.json() : [];
    } catch {
      levels = [];
    }
  }
  return levels;
}

/** A bot level's name ("label") or its line on how it plays ("about") in the language in
 * use; a seat played by a built-in bot named by the API shows that name. */
export function levelText(name, field = "label") {
  const level = (levels || []).find((l) => l.name === name);
  if (!level) return name;
  return level[field][lang()] ?? level[field].en;
}

let catalogue = null;

/** The engine's reason catalogue (tienlen.reasons, from /api/reasons), fetched once. */
export async function loadReasons() {
  if (catalogue === null) {
    try {
      const r = await fetch("/api/reasons");
      catalogue = r.ok ? await r.json() : {};
    } catch {
      catalogue = {};
    }
  }
  return catalogue;
}

// The same rules as tienlen.reasons: {name} as is, {name:kind} a combination, {name:kinds}
// a list of kind names joined with "or".
function kindWords(value, code) {
  const forms = catalogue.kinds[value.kind];
  if (!forms) return value.kind;
  const form = value.top && forms.top ? forms.top : value.rank && forms.rank ? forms.rank : forms.plain;
  return fillReason(form[code] ?? form.en, value, code);
}

function kindsWords(kinds, code) {
  const words = kinds.map((k) => (catalogue.kind_names[k] || {})[code] || k.replace(/_/g, " "));
  const last = words.pop();
  return words.length ? `${words.join(", ")} ${catalogue.or[code] || "or"} ${last}` : last;
}

function fillReason(template, params, code) {
  return template.replace(/\{(\w+)(?::(\w+))?\}/g, (m, name, form) => {
    if (!(name in params)) return m;
    if (form === "kind") return kindWords(params[name], code);
    if (form === "kinds") return kindsWords([...params[name]], code);
    return String(params[name]);
  });
}

/** An error frame in words: the catalogue's template for its reason code in the language
 * in use, the interface's words for its error code, else the server's English message. */
export function reasonText(error) {
  const reason = error.reason;
  const entry = reason && catalogue && catalogue.reasons ? catalogue.reasons[reason.code] : null;
  // A server-side refusal with words of its own here (e.g. try_again), else the English.
  if (!entry) return `error.${error.code}` in WORDS.en ? t(`error.${error.code}`) : error.message;
  const code = lang();
  return fillReason(entry[code] ?? entry.en, reason.params || {}, code);
}

let phrases = null;

/** The engine's catalogue of rule descriptions (tienlen.describe, /api/descriptions), once. */
export async function loadPhrases() {
  if (phrases === null) {
    try {
      const r = await fetch("/api/descriptions");
      phrases = r.ok ? await r.json() : { phrases: {}, or: {} };
    } catch {
      phrases = { phrases: {}, or: {} };
    }
  }
  return phrases;
}

// The same rules as tienlen.describe: {name} is the parameter worded in the language (a
// {code, params} phrase or a {join, items} list in turn), {name:cap} with a capital first.
function paramText(value, code) {
  if (value && typeof value === "object") {
    if ("join" in value) {
      const words = value.items.map((i) => phraseText(i, code));
      if (value.join === "comma") return words.join(", ");
      if (value.join === "ladder") return words.map((w, i) => `(${i + 1}) ${w}`).join("; ");
      const last = words.pop();
      return words.length ? `${words.join(", ")} ${phrases.or[code] || "or"} ${last}` : last;
    }
    return phraseText(value, code);
  }
  return String(value);
}

/** A rule description ({code, params}) in the language in use (or ``code``). */
export function phraseText(phrase, code = lang()) {
  const entry = phrases && phrases.phrases[phrase.code];
  if (!entry) return phrase.code;
  const params = phrase.params || {};
  return (entry[code] ?? entry.en).replace(/\{(\w+)(?::(cap))?\}/g, (m, name, form) => {
    if (!(name in params)) return m;
    const text = paramText(params[name], code);
    return form === "cap" ? text.charAt(0).toUpperCase() + text.slice(1) : text;
  });
}
