// @ts-check
// Every string of the dashboard's own, Traditional Chinese (default) and English, in one
// table. The rules' words (violation and fault codes, 台 items, claims) are not here: they
// come from the service's rulebook (vocabulary.js).
// The language is remembered in localStorage ("mjtable.lang"). Pages call t(key, params)
// and re-render on onLangChange. Nothing here is ever parsed as HTML.

const STORE_KEY = "mjtable.lang";

export const STRINGS = {
  // --- chrome ---
  "app.name": { zh: "麻將桌", en: "mjtable" },
  "lang.toggle": { zh: "English", en: "中文" },
  "lang.toggle.title": { zh: "Switch to English", en: "切換為中文" },
  "speak.on": { zh: "語音報分：開", en: "Call results: on" },
  "speak.off": { zh: "語音報分：關", en: "Call results: off" },
  "speak.tap": { zh: "語音報分：點一下畫面", en: "Call results: tap the page" },
  "speak.title": { zh: "每手結果以國語唸出（這個螢幕會記得）", en: "Each hand's result is called aloud in Mandarin (this screen remembers)" },
  "nav.club": { zh: "全館", en: "Club" },
  "nav.table": { zh: "牌桌", en: "Table" },
  "nav.session": { zh: "場次", en: "Session" },
  "nav.referee": { zh: "裁判", en: "Referee" },
  "nav.docs": { zh: "API 文件", en: "API docs" },
  "nav.admin": { zh: "管理", en: "Admin" },
  "conn.live": { zh: "即時", en: "Live" },
  "conn.connecting": { zh: "連線中…", en: "Connecting…" },
  "conn.reconnecting": { zh: "重新連線中…", en: "Reconnecting…" },
  "conn.stale": { zh: "與伺服器斷線：以下資料不是即時的", en: "Disconnected: what you see is not live" },
  "conn.offline": { zh: "牌桌離線", en: "Table offline" },
  "conn.offline.detail": { zh: "牌桌的連線中斷，恢復後自動補上", en: "The table's bridge is offline; it catches up when it returns" },
  "conn.retry_in": { zh: "{s} 秒後重試", en: "retrying in {s} s" },
  "load.error": { zh: "載入失敗：{error}", en: "Could not load: {error}" },
  "loading": { zh: "載入中…", en: "Loading…" },
  "none": { zh: "無", en: "none" },
  "list.sep": { zh: "、", en: ", " },

  // --- winds, seats, rounds ---
  "wind.E": { zh: "東", en: "East" },
  "wind.S": { zh: "南", en: "South" },
  "wind.W": { zh: "西", en: "West" },
  "wind.N": { zh: "北", en: "North" },
  "wind.short.E": { zh: "東", en: "E" },
  "wind.short.S": { zh: "南", en: "S" },
  "wind.short.W": { zh: "西", en: "W" },
  "wind.short.N": { zh: "北", en: "N" },
  "round": { zh: "{wind}風圈", en: "{wind} round" },
  "deal_no": { zh: "第{n}局", en: "hand {n}" },
  "round.deal": { zh: "{wind}風圈 第{n}局", en: "{wind} round · hand {n}" },
  "seat": { zh: "{n}號位", en: "seat {n}" },
  "seat.player": { zh: "{name}（{n}號位）", en: "{name} (seat {n})" },

  // --- sitting down: the table's QR codes, a player's phone (sit.html) ---
  "seating.title": { zh: "掃描 QR 碼入座", en: "Scan to take your seat" },
  "seating.sub": { zh: "第一局洗牌前，用手機掃描自己座位的 QR 碼", en: "Before the first shuffle, scan your seat's code with your phone" },
  "seating.qr": { zh: "{seat}的 QR 碼", en: "QR code of {seat}" },
  "adm.seating": { zh: "座位（第一局洗牌前）", en: "Seats (before the first shuffle)" },
  "adm.seating.sub": { zh: "玩家可掃描牌桌上的 QR 碼入座；也可以在這裡直接安排（名單上的名字即該玩家，其他為來賓）", en: "Players take seats with the table's QR codes; or seat anyone here (a name of the list seats that player, any other a guest)" },
  "adm.seat.name": { zh: "{seat}的玩家", en: "Player at {seat}" },
  "adm.seat.set": { zh: "入座", en: "Seat" },
  "adm.seat.done": { zh: "{name} 已坐在{seat}", en: "{name} sits at {seat}" },
  "sit.title": { zh: "入座", en: "Take a seat" },
  "sit.at": { zh: "{t} 號桌 · {seat}", en: "Table {t} · {seat}" },
  "sit.now": { zh: "目前：{name}", en: "Now: {name}" },
  "sit.pick": { zh: "你是哪一位？", en: "Who are you?" },
  "sit.search": { zh: "搜尋名字", en: "Search names" },
  "sit.guest": { zh: "不在名單上？輸入名字", en: "Not on the list? Your name" },
  "sit.take": { zh: "坐這個位子", en: "Take this seat" },
  "sit.done": { zh: "{name} 已坐在{seat}", en: "{name} sits at {seat}" },
  "sit.to_table": { zh: "看牌桌", en: "See the table" },
  "sit.closed": { zh: "這一場已經開始洗牌：座位不能再換，請找管理員", en: "The session's first shuffle has come: seats stand; ask an admin" },
  "sit.rescan": { zh: "這個 QR 碼已用過或不對：請重新掃描牌桌上的 QR 碼", en: "This code was used or is wrong: scan the table's code again" },
  "sit.bad_link": { zh: "這個連結不完整：請重新掃描牌桌上的 QR 碼", en: "This link is incomplete: scan the table's code again" },
  "sit.error": { zh: "無法入座：{error}", en: "Could not take the seat: {error}" },
  "dealer": { zh: "莊", en: "Dealer" },
  "dealer.streak": { zh: "連{n}拉{n}", en: "Dealer ×{n}" },
  "dealer.title": { zh: "莊家", en: "Dealer" },
  "turn": { zh: "輪到", en: "To move" },
  "turn.draw": { zh: "摸牌", en: "draw" },
  "turn.discard": { zh: "打牌", en: "discard" },
  "claim.may": { zh: "可{claims}", en: "may {claims}" },
  "claim.sep": { zh: "・", en: "/" },
  "claim.open": { zh: "{name} 打出", en: "{name} discarded" },
  "claim.who": { zh: "可搶牌：{names}", en: "May claim: {names}" },
  "status.dead": { zh: "相公", en: "Dead hand" },
  "status.passed": { zh: "過水", en: "Passed win" },
  "status.heavenly_ready": { zh: "天聽", en: "Heavenly ready" },
  "status.earthly_ready": { zh: "地聽", en: "Earthly ready" },
  "status.owed": { zh: "待補 {n}", en: "{n} to replace" },
  "tiles.left": { zh: "剩餘", en: "Left" },
  "tiles.drawable": { zh: "可摸 {n} 張", en: "{n} drawable" },
  "tiles.drawable.label": { zh: "可摸張數", en: "drawable tiles" },
  "tiles.reserve": { zh: "保留 {n} 墩", en: "reserve {n} stacks" },
  "tiles.wall": { zh: "牌牆 {n} 張", en: "wall {n} tiles" },
  "tiles.concealed": { zh: "手牌 {n} 張", en: "{n} in hand" },
  "flowers": { zh: "花", en: "Flowers" },
  "melds": { zh: "明牌", en: "Melds" },
  "discards": { zh: "河", en: "Discards" },
    "hands.played": { zh: "已打 {n} 局", en: "{n} hands played" },
  "score": { zh: "分數", en: "Score" },
  "phase.none": { zh: "尚未開局", en: "No hand yet" },
  "phase.idle": { zh: "閒置", en: "Idle" },
  "phase.shuffling": { zh: "洗牌中", en: "Shuffling" },
  "phase.built": { zh: "牌牆就緒", en: "Wall built" },
  "phase.dealing": { zh: "配牌中", en: "Dealing" },
  "phase.play": { zh: "對局中", en: "Playing" },
  "phase.over": { zh: "本局結束", en: "Hand over" },
  "no_table": { zh: "沒有這張牌桌：{t}", en: "No such table: {t}" },
  "no_table.param": { zh: "請在網址加上 ?t=牌桌代號", en: "Add ?t=<table> to the address" },
  "table.waiting": { zh: "等待牌桌資料…", en: "Waiting for the table…" },
  "table.session": { zh: "場次紀錄", en: "Session record" },

  // --- melds ---
  "meld.chow": { zh: "吃", en: "chow" },
  "meld.pong": { zh: "碰", en: "pong" },
  "meld.kong_exposed": { zh: "明槓", en: "kong" },
  "meld.kong_added": { zh: "加槓", en: "added kong" },
  "meld.kong_concealed": { zh: "暗槓", en: "concealed kong" },

  // --- banners: hands ---
  "hand.win": { zh: "胡牌", en: "Win" },
  "hand.self_draw": { zh: "自摸", en: "Self-draw" },
  "hand.discard": { zh: "{payer} 放槍", en: "on {payer}'s discard" },
  "hand.robbing_kong": { zh: "搶槓：{payer} 付", en: "robbing {payer}'s kong" },
  "hand.flower_win": { zh: "花胡", en: "Flower win" },
  "hand.eight_immortals": { zh: "八仙過海", en: "Eight immortals" },
  "hand.seven_rob_one": { zh: "七搶一：{payer} 付", en: "Seven rob one: {payer} pays" },
  "hand.seven_rob_one_self_draw": { zh: "七搶一自摸", en: "Seven rob one, self-drawn" },
  "hand.drawn": { zh: "荒局", en: "Drawn hand" },
  "hand.drawn.detail": { zh: "無人胡牌，{dealer} 連莊", en: "No winner; {dealer} keeps the deal" },
  "hand.false_win": { zh: "詐胡", en: "False win" },
  "hand.false_win.detail": { zh: "{name} 詐胡，賠三家", en: "{name} declared a false win and pays the three others" },
  "hand.false_win.codes": { zh: "原因", en: "Why" },
  "hand.winning_tile": { zh: "胡", en: "Winning tile" },
  "hand.laid_down": { zh: "{name} 的牌", en: "{name}'s hand" },
  "hand.previous": { zh: "上一手", en: "Last hand" },
  "winds.opening": { zh: "開門位為東，依序南西北", en: "Seat winds: the seat the dice opened is East" },
  "winds.dealer": { zh: "莊家為東，依序南西北", en: "Seat winds: the dealer is East" },
  "hand.no": { zh: "第{n}手", en: "Hand {n}" },
  "hand.tai": { zh: "台數", en: "Tai" },
  "hand.total": { zh: "合計", en: "Total" },
  "hand.tai_n": { zh: "{n} 台", en: "{n} tai" },
  "hand.face": { zh: "牌面", en: "Hand value" },
  "hand.dealer_tai": { zh: "莊家台（另計）", en: "Dealer tai (apart)" },
  "hand.dealer_tai.dealer": { zh: "作莊", en: "Dealer" },
  "hand.dealer_tai.streak": { zh: "連{n}拉{n}", en: "{n}-hand streak" },
  "hand.no_items": { zh: "屁胡（0 台）", en: "No tai (a 0-tai win)" },
  "hand.settlement": { zh: "結算", en: "Settlement" },
  "hand.pays": { zh: "{from} → {to}", en: "{from} → {to}" },
  "hand.next": { zh: "下一局：{dealer} 作莊{streak}，{round}", en: "Next: {dealer} deals{streak}, {round}" },
  "hand.next.streak": { zh: "（連{n}）", en: " (streak {n})" },
  "hand.jiang_over": { zh: "一將結束", en: "The 將 is over" },
  "hand.waiting_next": { zh: "等待下一局", en: "Until the next hand" },

  // --- banners: violations and faults ---
  "violation": { zh: "違規", en: "Violation" },
  "violation.by": { zh: "{name}（{wind}家）", en: "{name} ({wind})" },
  "fault": { zh: "感應異常", en: "Sensor fault" },
  "fault.nobody": { zh: "非玩家過失，請裁判確認", en: "No player is blamed; the referee checks the table" },
  "dismiss": { zh: "關閉", en: "Close" },

  // --- club view ---
  "club.title": { zh: "全館牌桌", en: "All tables" },
  "club.tables": { zh: "{n} 桌", en: "{n} tables" },
  "club.playing": { zh: "對局中 {n}", en: "{n} playing" },
  "club.idle": { zh: "閒置 {n}", en: "{n} idle" },
  "club.offline": { zh: "離線 {n}", en: "{n} offline" },
  "club.open_violations": { zh: "待裁決 {n}", en: "{n} to rule" },
  "club.state.playing": { zh: "對局中", en: "Playing" },
  "club.state.idle": { zh: "閒置", en: "Idle" },
  "club.state.offline": { zh: "離線", en: "Offline" },
  "club.leader": { zh: "領先", en: "Leads" },
  "club.dealer": { zh: "莊", en: "Dealer" },
  "club.empty": { zh: "尚無牌桌", en: "No tables yet" },
  "club.violations": { zh: "違規 {n}", en: "{n} violations" },

  // --- session view ---
  "session.title": { zh: "場次 {id}", en: "Session {id}" },
  "session.list": { zh: "所有場次", en: "All sessions" },
  "session.table": { zh: "牌桌 {t}", en: "Table {t}" },
  "session.started": { zh: "開始 {at}", en: "started {at}" },
  "session.ended": { zh: "結束 {at}", en: "ended {at}" },
  "session.open": { zh: "進行中", en: "in play" },
  "session.stakes": { zh: "底 {base}／台 {per_tai}", en: "base {base} / {per_tai} a tai" },
  "session.profile": { zh: "規則 {p}", en: "rules {p}" },
  "session.rules": { zh: "本場規則：每項台數與選項", en: "The rules played: every 台 value and switch" },
  "session.standings": { zh: "戰績", en: "Standings" },
  "session.chart": { zh: "累計分數", en: "Running score" },
  "session.hands": { zh: "牌局紀錄", en: "Hands" },
  "session.none": { zh: "尚無牌局", en: "No hands yet" },
  "session.hands.all": { zh: "顯示全部 {n} 局（較早的 {hidden} 局已收起）", en: "Show all {n} hands ({hidden} earlier ones folded)" },
  "session.not_found": { zh: "沒有這個場次：{id}", en: "No such session: {id}" },
  "session.col.player": { zh: "玩家", en: "Player" },
  "session.col.total": { zh: "總分", en: "Total" },
  "session.col.hands": { zh: "局數", en: "Hands" },
  "session.col.wins": { zh: "胡", en: "Wins" },
  "session.col.self_draws": { zh: "自摸", en: "Self-draws" },
  "session.col.dealt_in": { zh: "放槍", en: "Dealt in" },
  "session.col.false_wins": { zh: "詐胡", en: "False wins" },
  "session.col.hand": { zh: "局", en: "Hand" },
  "session.col.round": { zh: "圈", en: "Round" },
  "session.col.result": { zh: "結果", en: "Result" },
  "session.col.tile": { zh: "胡張", en: "Tile" },
  "session.col.tai": { zh: "台", en: "Tai" },
  "session.col.payments": { zh: "付款", en: "Payments" },
  "session.col.step": { zh: "逐步重播", en: "Step through" },
  "session.replay": { zh: "逐步重播", en: "Step through" },
  "session.revised": { zh: "改判", en: "revised" },
  "session.revised.title": { zh: "裁判裁決 {ids} 改了這一局", en: "revised by the referee's ruling {ids}" },
  "session.rulings": { zh: "裁判裁決紀錄", en: "The referee's rulings" },
  "session.ruling.id": { zh: "編號", en: "No." },
  "session.ruling.kind": { zh: "裁決", en: "Ruling" },
  "session.ruling.reason": { zh: "理由", en: "Reason" },
  "session.ruling.when": { zh: "時間", en: "When" },
  "session.ruling.change": { zh: "改變", en: "What it changed" },
  "session.ruling.hands": { zh: "改判 {hands}", en: "hands {hands} revised" },
  "session.ruling.token": { zh: "權杖 {id}", en: "token {id}" },
  "session.ruling.withdrawn": { zh: "已由 #{id} 撤回", en: "withdrawn by #{id}" },
  "session.ruling.kind.tile": { zh: "更正牌張", en: "tile corrected" },
  "session.ruling.kind.drop": { zh: "刪除事件", en: "event struck" },
  "session.ruling.kind.insert": { zh: "補入事件", en: "event added" },
  "session.ruling.kind.verdict": { zh: "違規裁決", en: "verdict" },
  "session.ruling.kind.hand": { zh: "判定本局", en: "hand decided" },
  "session.ruling.kind.undo": { zh: "撤回裁決", en: "undo" },
  "session.ruling.kind.deal": { zh: "更正莊家", en: "deal" },
  "session.ruling.kind.penalty": { zh: "罰則", en: "penalty" },
  "session.ruling.kind.note": { zh: "備註", en: "note" },
  "session.x_hand": { zh: "局", en: "hand" },
  "session.correction": { zh: "裁判更正", en: "correction" },
  "session.start": { zh: "開始", en: "start" },
  "session.csv": { zh: "匯出 CSV", en: "Export CSV" },

  // --- the stepper ---
  "step.title": { zh: "第{n}手 逐步重播", en: "Hand {n}, step by step" },
  "step.first": { zh: "« 開頭", en: "« Start" },
  "step.prev": { zh: "‹ 上一步", en: "‹ Back" },
  "step.next": { zh: "下一步 ›", en: "Next ›" },
  "step.last": { zh: "結尾 »", en: "End »" },
  "step.play": { zh: "播放", en: "Play" },
  "step.pause": { zh: "暫停", en: "Pause" },
  "step.close": { zh: "關閉", en: "Close" },
  "step.of": { zh: "第 {i} / {n} 步", en: "step {i} of {n}" },
  "step.unavailable": { zh: "伺服器尚未提供逐步重播", en: "The service does not offer step-by-step replay yet" },
  "ev.shuffle_started": { zh: "開始洗牌", en: "Shuffle started" },
  "ev.shuffle_finished": { zh: "洗牌完成", en: "Shuffle finished" },
  "ev.wall_built": { zh: "牌牆立起", en: "Walls built" },
  "ev.dice_rolled": { zh: "{roll}點數 {a}・{b}・{c}", en: "Dice for {roll}: {a} · {b} · {c}" },
  "ev.dice.seating": { zh: "搬風", en: "seating" },
  "ev.dice.dealer": { zh: "定莊", en: "choosing the dealer" },
  "ev.dice.deal": { zh: "開門", en: "opening the wall" },
  "ev.tile_drawn": { zh: "{name} 摸牌", en: "{name} draws" },
  "ev.tile_drawn.back": { zh: "{name} 自槓尾補牌", en: "{name} draws a replacement" },
  "ev.tile_discarded": { zh: "{name} 打出", en: "{name} discards" },
  "ev.meld_exposed": { zh: "{name} {meld}", en: "{name}: {meld}" },
  "ev.flower_revealed": { zh: "{name} 補花", en: "{name} reveals a flower" },
  "ev.seat_button": { zh: "{name} 按「{button}」", en: "{name} presses {button}" },
  "ev.hand_revealed": { zh: "{name} 攤牌", en: "{name} reveals the hand" },
  "ev.tiles_left": { zh: "牌桌計數：剩 {n} 張", en: "Table count: {n} tiles left" },
  "ev.fault": { zh: "機台故障 {code}", en: "Machine fault: {code}" },
  "ev.state": { zh: "機台狀態回報", en: "Table state report" },
  "ev.tiles_shown": { zh: "{name} 亮出牌", en: "{name} showed tiles" },
  "ev.invalid": { zh: "無效訊框", en: "Invalid frame" },
  "ev.session": { zh: "場次開始", en: "Session started" },
  "ev.correction": { zh: "裁判更正", en: "Referee correction" },
  "ev.other": { zh: "{kind}", en: "{kind}" },
  "button.win": { zh: "胡", en: "win" },
  "button.ready": { zh: "聽", en: "ready" },
  "button.pong": { zh: "碰", en: "pong" },
  "button.chow": { zh: "吃", en: "chow" },
  "button.kong": { zh: "槓", en: "kong" },
  "button.pass": { zh: "過", en: "pass" },

  // --- referee ---
  "ref.title": { zh: "裁判台", en: "Referee desk" },
  "ref.token": { zh: "裁判權杖", en: "Referee token" },
  "ref.token.hint": { zh: "貼上權杖（僅保存在此分頁）", en: "Paste a token (kept in this tab only)" },
  "ref.token.save": { zh: "使用", en: "Use" },
  "ref.token.forget": { zh: "清除權杖", en: "Forget token" },
  "ref.token.set": { zh: "已設定權杖", en: "Token set" },
  "ref.token.missing": { zh: "尚未設定權杖：只能瀏覽", en: "No token: read only" },
  "ref.refresh": { zh: "重新整理", en: "Refresh" },
  "ref.confirm": { zh: "確認違規", en: "Confirm" },
  "ref.dismiss": { zh: "駁回", en: "Dismiss" },
  "ref.note": { zh: "備註", en: "Note" },
  "ref.decision.confirmed": { zh: "確認", en: "confirmed" },
  "ref.decision.dismissed": { zh: "駁回", en: "dismissed" },
  "ref.correction": { zh: "更正", en: "Corrections" },
  "ref.table": { zh: "牌桌", en: "Table" },
  "ref.kind": { zh: "種類", en: "Kind" },
  "ref.kind.deal": { zh: "更正下一局莊家", en: "Next deal" },
  "ref.kind.penalty": { zh: "罰款（包賠／眼牌）", en: "Penalty (包賠 / 眼牌)" },
  "ref.kind.note": { zh: "備註", en: "Note" },
  "ref.dealer": { zh: "莊家座位", en: "Dealer seat" },
  "ref.streak": { zh: "連莊數", en: "Streak" },
  "ref.round_wind": { zh: "圈風", en: "Round wind" },
  "ref.offender": { zh: "違規者", en: "Offender" },
  "ref.tai": { zh: "牌面台數", en: "Tai (hand value)" },
  "ref.reason": { zh: "原因", en: "Reason" },
  "ref.submit": { zh: "送出", en: "Submit" },
  "ref.sent": { zh: "已記錄更正 #{id}", en: "Correction #{id} recorded" },
  "ref.recent": { zh: "最近的裁決與更正", en: "Recent rulings" },
  "ref.faults": { zh: "最近的感應異常", en: "Recent sensor faults" },
  "ref.col.when": { zh: "時間", en: "When" },
  "ref.col.table": { zh: "牌桌", en: "Table" },
  "ref.col.who": { zh: "違規者", en: "Offender" },
  "ref.col.rule": { zh: "規則", en: "Rule" },
  "ref.col.action": { zh: "裁決", en: "Ruling" },
  "ref.err.401": { zh: "權杖無效或已撤銷", en: "Unknown or revoked token" },
  "ref.err.403": { zh: "此權杖沒有這個權限", en: "This token's role may not do this" },
  "ref.err": { zh: "失敗：{error}", en: "Failed: {error}" },
  "ref.need_token": { zh: "請先貼上權杖", en: "Paste a token first" },
  "ref.violations": { zh: "違規與裁決", en: "Violations and rulings" },
  "ref.none": { zh: "沒有違規", en: "No violations" },
  "ref.filtered.none": { zh: "沒有符合篩選的違規", en: "No violation matches the filters" },
  "ref.all": { zh: "全部", en: "All" },
  "ref.col.hand": { zh: "局", en: "Hand" },
  "ref.col.status": { zh: "狀態", en: "Status" },
  "ref.hand.live": { zh: "進行中的一局", en: "Hand in play" },
  "ref.hand.of": { zh: "場次 {s} 第{n}手", en: "Session {s} · hand {n}" },
  "ref.hand.pick_table": { zh: "先選牌桌", en: "Pick a table first" },
  "ref.step": { zh: "在逐步重播中看這一步", en: "See this step in the hand's replay" },
  "ref.status.open": { zh: "待裁決", en: "Open" },
  "ref.status.confirmed": { zh: "已確認", en: "Confirmed" },
  "ref.status.dismissed": { zh: "已駁回", en: "Dismissed" },
  "ref.ruled": { zh: "裁決 #{id}：權杖 #{token}，{at}", en: "Ruling #{id} by token #{token}, {at}" },
  "ref.undo": { zh: "撤銷裁決", en: "Undo" },
  "ref.undo.reason": { zh: "撤銷原因", en: "Why undo" },
  "ref.undone": { zh: "已撤銷裁決 #{id}：違規重新待裁決", en: "Ruling #{id} withdrawn: the violation is open again" },
  "ref.decided.n": { zh: "已{decision} {n} 項違規", en: "{n} {decision}" },
  "ref.select": { zh: "選取", en: "Select" },
  "ref.select.all": { zh: "選取全部待裁決", en: "Select every open one" },
  "ref.selected": { zh: "已選 {n} 項", en: "{n} selected" },
  "ref.reason.bulk": { zh: "一併裁決的原因", en: "One reason for all selected" },
  "ref.confirm.selected": { zh: "確認所選", en: "Confirm selected" },
  "ref.dismiss.selected": { zh: "駁回所選", en: "Dismiss selected" },
  "ref.news": { zh: "新違規 {n} 項：顯示", en: "{n} new — show" },
  "ref.read_only": { zh: "唯讀", en: "read only" },
  "ref.read_only.long": { zh: "沒有裁判權杖：只能瀏覽。裁決（確認、駁回、撤銷、更正）需要裁判權杖。", en: "No referee token: read only. Ruling (confirm, dismiss, undo, corrections) needs a referee's token." },
  "ref.kind.verdict": { zh: "裁決違規", en: "Verdict" },
  "ref.kind.undo": { zh: "撤銷", en: "Undo" },
  "ref.kind.tile": { zh: "更正牌張", en: "Tile read" },
  "ref.kind.drop": { zh: "刪除事件", en: "Event dropped" },
  "ref.kind.insert": { zh: "補上事件", en: "Event inserted" },
  "ref.withdrawn": { zh: "已由 #{id} 撤銷", en: "withdrawn by #{id}" },
  "ref.by_token": { zh: "權杖 #{token}", en: "token #{token}" },

  // --- the admin's session form (admin.html) ---
  "adm.title": { zh: "場次管理", en: "Sessions (admin)" },
  "adm.token": { zh: "管理員權杖", en: "Admin token" },
  "adm.read_only.long": { zh: "沒有管理員權杖：只能瀏覽。開始或結束場次需要管理員權杖。", en: "No admin token: read only. Starting or ending a session needs an admin's token." },
  "adm.tables": { zh: "牌桌", en: "Tables" },
  "adm.tables.none": { zh: "服務尚未追蹤任何牌桌", en: "The service follows no table yet" },
  "adm.col.table": { zh: "牌桌", en: "Table" },
  "adm.col.session": { zh: "場次", en: "Session" },
  "adm.col.players": { zh: "玩家", en: "Players" },
  "adm.col.deal": { zh: "圈風・莊家・連莊", en: "Round · dealer · streak" },
  "adm.col.hand": { zh: "牌局", en: "Hand" },
  "adm.col.choose": { zh: "選擇牌桌", en: "Choose" },
  "adm.choose": { zh: "選擇", en: "Choose" },
  "adm.chosen": { zh: "已選", en: "Chosen" },
  "adm.session.link": { zh: "場次 {id}", en: "Session {id}" },
  "adm.session.none": { zh: "沒有場次", en: "No session" },
  "adm.session.runs": { zh: "{t} 桌正在進行：", en: "Table {t} plays" },
  "adm.session.next": { zh: "{t} 桌的下一局起：", en: "From table {t}'s next hand:" },
  "adm.session.none.long": { zh: "{t} 桌目前沒有場次：牌局照常判定與儲存，但不記在任何玩家名下。", en: "Table {t} has no session: hands are still judged and stored, under no players." },
  "adm.hand.playing": { zh: "進行中", en: "in play" },
  "adm.hand.idle": { zh: "未開局", en: "between hands" },
  "adm.offline": { zh: "離線", en: "offline" },
  "adm.current": { zh: "目前狀態", en: "Now" },
  "adm.pick": { zh: "先選一張牌桌", en: "Choose a table first" },
  "adm.start": { zh: "開始新場次", en: "Start a session" },
  "adm.start.at": { zh: "在 {t} 桌開始新場次", en: "Start a session at table {t}" },
  "adm.start.replaces": { zh: "開始新場次會結束正在進行的場次 {id}。", en: "Starting one ends session {id}, which runs now." },
  "adm.player": { zh: "{n}號位", en: "Seat {n}" },
  "adm.player.hint": { zh: "玩家名稱", en: "Player's name" },
  "adm.base": { zh: "底", en: "Base" },
  "adm.per_tai": { zh: "每台", en: "Per tai" },
  "adm.profile": { zh: "規則", en: "Rules" },
  "nav.players": { zh: "玩家", en: "Players" },
  "pl.title": { zh: "玩家", en: "Players" },
  "pl.one": { zh: "玩家", en: "Player" },
  "pl.board": { zh: "排行榜", en: "Leaderboard" },
  "pl.board.empty": { zh: "這段期間還沒有玩家打滿所需局數", en: "No player has played enough hands in this span" },
  "pl.list": { zh: "玩家名單", en: "The club's players" },
  "pl.list.empty": { zh: "名單上還沒有玩家（由管理員在 API 新增）", en: "No players listed yet (an admin adds them over the API)" },
  "pl.player": { zh: "玩家", en: "Player" },
  "pl.figure": { zh: "依", en: "Ranked by" },
  "pl.span": { zh: "期間", en: "Span" },
  "pl.span.all": { zh: "全部", en: "All time" },
  "pl.span.month": { zh: "近 30 天", en: "Last 30 days" },
  "pl.span.day": { zh: "近 24 小時", en: "Last 24 hours" },
  "pl.min_hands": { zh: "至少局數", en: "At least hands" },
  "pl.unreachable": { zh: "暫時連不上服務", en: "The service cannot be reached" },
  "pl.none": { zh: "沒有 {id} 號玩家", en: "No player {id}" },
  "pl.more": { zh: "牌局細節", en: "Details" },
  "pl.charts": { zh: "輸贏走勢與每把台數", en: "Money over the hands, and the 台 of each win" },
  "pl.chart.net": { zh: "累計輸贏", en: "Running net" },
  "pl.chart.tai": { zh: "胡牌台數", en: "台 of a win" },
  "pl.hand_n": { zh: "第幾局", en: "Hand" },
  "pl.no_hands": { zh: "還沒有牌局", en: "No hands yet" },
  "pl.biggest": { zh: "最大的一把：", en: "Biggest win:" },
  "pl.biggest.hand": { zh: "第 {hand} 局，{tai} 台", en: "hand {hand}, {tai} 台" },
  "pl.items": { zh: "最常胡的台", en: "台 items won most often" },
  "pl.violations": { zh: "犯規", en: "Violations" },
  "pl.violations.none": { zh: "沒有", en: "None" },
  "fig.hands": { zh: "局數", en: "Hands" },
  "fig.sessions": { zh: "場次", en: "Sessions" },
  "fig.wins": { zh: "胡牌", en: "Wins" },
  "fig.win_rate": { zh: "胡牌率", en: "Win rate" },
  "fig.self_draws": { zh: "自摸", en: "Self-draws" },
  "fig.self_draw_rate": { zh: "自摸率", en: "Self-draw rate" },
  "fig.discard_wins": { zh: "胡別人的牌", en: "Wins on a discard" },
  "fig.deal_ins": { zh: "放槍", en: "Deal-ins" },
  "fig.deal_in_rate": { zh: "放槍率", en: "Deal-in rate" },
  "fig.tai_per_win": { zh: "平均台數（胡）", en: "台 per win" },
  "fig.tai_per_deal_in": { zh: "平均台數（放槍）", en: "台 per deal-in" },
  "fig.false_wins": { zh: "詐胡", en: "False wins" },
  "fig.net": { zh: "輸贏", en: "Net" },
  "fig.won": { zh: "贏", en: "Won" },
  "fig.lost": { zh: "輸", en: "Lost" },
  "fig.dealer_hands": { zh: "做莊局數", en: "Hands as dealer" },
  "fig.dealer_wins": { zh: "莊家胡牌", en: "Wins as dealer" },
  "fig.longest_streak": { zh: "最長連莊", en: "Longest 連莊" },
  "fig.sensed_hands": { zh: "感應到的局數", en: "Hands the sensors saw" },
  "fig.ready_rate": { zh: "聽牌率", en: "Ready rate" },
  "fig.ready_round": { zh: "平均第幾巡聽牌", en: "Go-round of readiness" },
  "fig.deal_in_round": { zh: "平均第幾巡放槍", en: "Go-round of a deal-in" },
  "fig.seconds_per_turn": { zh: "每手思考時間", en: "Time per turn" },
  "fig.hand_seconds": { zh: "每局時間", en: "Time per hand" },
  "fig.go_rounds": { zh: "每局巡數", en: "Go-rounds per hand" },
  "unit.seconds": { zh: "{n} 秒", en: "{n} s" },
  "unit.minutes": { zh: "{m} 分 {s} 秒", en: "{m} min {s} s" },
  "wait.single": { zh: "單釣", en: "Pair wait (單釣)" },
  "wait.edge": { zh: "邊張", en: "Edge wait (邊張)" },
  "wait.closed": { zh: "中洞", en: "Closed wait (中洞)" },
  "wait.two_sided": { zh: "兩面", en: "Two-sided" },
  "wait.double_pong": { zh: "雙碰", en: "Double pong (雙碰)" },
  "wait.multi": { zh: "三面以上", en: "Three kinds or more" },
  "wait.other": { zh: "其他", en: "Other" },
  "pl.sensed": { zh: "感應器看到的", en: "What the sensors saw" },
  "pl.waits": { zh: "胡牌時的聽牌型", en: "The wait of each win" },
  "pl.waits.single": { zh: "獨聽 {n} 把，多面聽 {m} 把", en: "{n} single waits (獨聽), {m} of two kinds or more" },
  "pl.csv": { zh: "下載所有玩家的數據（CSV）", en: "Every player's figures (CSV)" },
  "adm.rules.edit": { zh: "調整規則", en: "Change the rules" },
  "adm.rules.same": { zh: "（與預設相同）", en: "(as the preset)" },
  "adm.rules.changed": { zh: "（{n} 項與預設不同）", en: "({n} changed from the preset)" },
  "adm.rules.tai": { zh: "每項台數（0 表示不計）", en: "台 per item (0 removes it)" },
  "adm.deal": { zh: "莊家、連莊、圈風、起莊位", en: "Dealer, streak, round, start seat" },
  "adm.deal.table": { zh: "沿用牌桌目前的：{dealer}、{streak}、{round}、起莊 {start}", en: "The table's own: {dealer}, {streak}, {round}, started by {start}" },
  "adm.deal.override": { zh: "改用以下設定", en: "Override them" },
  "adm.deal.unknown": { zh: "牌桌尚無狀態：服務使用預設（東風圈、0號位起莊）", en: "No state yet: the service's defaults (East round, seat 0 starts)" },
  "adm.dealer": { zh: "莊家", en: "Dealer" },
  "adm.streak": { zh: "連莊數", en: "Streak" },
  "adm.round_wind": { zh: "圈風", en: "Round wind" },
  "adm.start_seat": { zh: "起莊位", en: "Start seat" },
  "adm.streak.n": { zh: "連{n}", en: "streak {n}" },
  "adm.mid_hand": { zh: "場次從下一次洗牌開始：開始時若有一局正在進行，那一局打完並記入原來的場次。", en: "A session begins at the next shuffle: a hand under way when it is started is finished and scored in the session it began in." },
  "adm.mid_hand.now": { zh: "{t} 桌現在正有一局進行中：新場次從下一局開始，這一局記入原來的場次。", en: "A hand is under way at table {t} now: the new session begins with the next hand; this one is scored in the session it began in." },
  "adm.submit": { zh: "開始場次", en: "Start session" },
  "adm.started": { zh: "已開始新場次：", en: "Session started:" },
  "adm.started.next": { zh: "新場次將從下一局開始（這一局記入原來的場次）：", en: "The new session begins with the next hand (this one is scored in the session it began in):" },
  "adm.end": { zh: "結束場次", en: "End session" },
  "adm.end.confirm": { zh: "確定結束 {t} 桌的場次 {id}？之後的牌局不記在任何玩家名下。", en: "End session {id} at table {t}? Later hands are stored under no players." },
  "adm.end.yes": { zh: "確定結束", en: "Yes, end it" },
  "adm.end.no": { zh: "取消", en: "Cancel" },
  "adm.ended": { zh: "已結束場次 {id}", en: "Session {id} ended" },
  "adm.err": { zh: "服務回覆：{error}", en: "The service says: {error}" },
};

// Tile names (for labels and screen readers).
const NUMERALS = "一二三四五六七八九";
const SUITS = { m: { zh: "萬", en: "characters" }, p: { zh: "筒", en: "dots" }, s: { zh: "索", en: "bamboo" } };
const HONOURS = {
  E: { zh: "東", en: "East" }, S: { zh: "南", en: "South" }, W: { zh: "西", en: "West" },
  N: { zh: "北", en: "North" }, C: { zh: "紅中", en: "Red dragon" },
  F: { zh: "發財", en: "Green dragon" }, P: { zh: "白板", en: "White dragon" },
};
const FLOWERS = {
  zh: ["春", "夏", "秋", "冬", "梅", "蘭", "菊", "竹"],
  en: ["Spring", "Summer", "Autumn", "Winter", "Plum", "Orchid", "Chrysanthemum", "Bamboo"],
};

let current = initial();
const listeners = new Set();

function initial() {
  try {
    const saved = localStorage.getItem(STORE_KEY);
    if (saved === "zh" || saved === "en") return saved;
  } catch {
    // storage disabled: the default
  }
  return "zh";
}

export function lang() {
  return current;
}

export function setLang(value) {
  if (value !== "zh" && value !== "en") return;
  current = value;
  try {
    localStorage.setItem(STORE_KEY, value);
  } catch {
    // not remembered, still switched
  }
  document.documentElement.lang = value === "zh" ? "zh-Hant-TW" : "en";
  for (const fn of listeners) fn(value);
}

export function toggleLang() {
  setLang(current === "zh" ? "en" : "zh");
}

export function onLangChange(fn) {
  listeners.add(fn);
}

/** The string for `key` in the current language, `{name}` placeholders filled. */
export function t(key, params = {}) {
  const entry = STRINGS[key];
  const text = entry ? entry[current] ?? entry.zh : key;
  return text.replace(/\{(\w+)\}/g, (_, name) => (name in params ? String(params[name]) : `{${name}}`));
}

export function windName(wind, short = false) {
  return wind ? t(`${short ? "wind.short" : "wind"}.${wind}`) : "";
}

/** A tile code's name: 五萬, 東, 紅中, 春 … (English: "5 characters"). */
export function tileName(code) {
  if (!code) return "";
  if (code === "back") return current === "zh" ? "牌背" : "tile back";
  if (code[0] === "h") {
    const i = Number(code.slice(1)) - 1;
    return FLOWERS[current][i] ?? code;
  }
  if (HONOURS[code]) return HONOURS[code][current];
  const n = Number(code[0]);
  const suit = SUITS[code[1]];
  if (!suit) return code;
  return current === "zh" ? `${NUMERALS[n - 1]}${suit.zh}` : `${n} ${suit.en}`;
}

/** Money with a sign and grouping: +1,240 / −360 / 0. */
export function money(n) {
  const abs = Math.abs(n).toLocaleString("en-US");
  if (n > 0) return `+${abs}`;
  if (n < 0) return `−${abs}`;
  return "0";
}

export function dateTime(unixSeconds) {
  if (!unixSeconds) return "";
  const d = new Date(unixSeconds * 1000);
  return d.toLocaleString(current === "zh" ? "zh-TW" : "en-GB", {
    year: "numeric", month: "2-digit", day: "2-digit", hour: "2-digit", minute: "2-digit",
    hourCycle: "h23",
  });
}

document.documentElement.lang = current === "zh" ? "zh-Hant-TW" : "en";
