"""The bot's messages in English, Russian, Chinese and Japanese.

The web client's strings live in src/kozyr/web/static/i18n/*.json; the bot's are
here, next to the code that sends them (they are Telegram messages, not pages).
Values are HTML (the bot sends parse_mode HTML): names are escaped before they
are put in.  Russian avoids number agreement by saying "Игроков: 4".
"""

from __future__ import annotations

TEXTS: dict[str, dict[str, str]] = {
    "en": {
        "welcome": "Hi, {name}! Let's play <b>Durak</b>.\n"
        "Play against the computer, or open a table for friends and send them the invite.",
        "play_computer": "Play against the computer",
        "create_room": "Create a room for friends",
        "rules": "Rules",
        "rules_text": "<b>Durak</b> in short: 36 cards, six each; the last card of the deck "
        "shows the trump suit. The attacker plays a card; the defender beats it with a higher "
        "card of the same suit or with a trump, or takes the cards. Others may add cards of "
        "ranks already on the table. When the deck is empty, whoever gets rid of their cards "
        "is out; the last one holding cards is the <b>durak</b> (the fool).",
        "seats_question": "How many players at the table?",
        "room_ready": "Your table is ready. Players: {n}.\n"
        "Invite friends with the button below, or send them this link:\n{link}\n"
        "The game starts when the table is full, or when you start it with bots in the "
        "empty seats.",
        "open_room": "Open the room",
        "share_invite": "Send the invite",
        "invite_text": "{name} invites you to a game of <b>Durak</b>. Players: {n}.",
        "join": "Join",
        "join_prompt": "A table is waiting for you. Tap to sit down.",
        "no_room": "That table is closed. Open a new one with /start.",
        "busy": "You are playing a game right now: finish it first.",
        "table_lobby": "<b>{host}</b> opens a table of <b>Durak</b>. Players: {n}.\n{seats}\n"
        "Tap “Take a seat”. The game starts when the table is full; {host} can start it "
        "now with bots in the empty seats.",
        "table_playing": "<b>Durak</b>: the game is on.\n{seats}",
        "table_closed": "<b>Durak</b>: this table is closed.",
        "free_seat": "free",
        "bot_seat": "bot",
        "bot_tag": "BOT",
        "take_seat": "Take a seat",
        "start_bots": "Start with bots",
        "open_table": "Open the table",
        "seated": "You have a seat. Open the table to play.",
        "already_seated": "You are already at this table.",
        "table_full": "The table is full.",
        "table_started": "The game has already started.",
        "only_host": "Only {host} can start this table.",
        "result_durak": "Game over at {host}'s table: <b>{name}</b> is the durak.",
        "result_pogony": "Game over at {host}'s table: <b>{name}</b> is the durak, with pogony!",
        "result_draw": "Game over at {host}'s table: a draw.",
        "nudge": "Your move at the table with {names}!",
        "back_to_table": "Back to the table",
        "nudges_stop": "No more reminders",
        "nudges_off": "Turn reminders are off. /nudges turns them back on.",
        "nudges_on": "Turn reminders are on. /nudges turns them off.",
        "group_only": "Send /durak in a group to open a table there.",
        "inline_title": "Invite to a table",
        "inline_desc": "Players: {n}, free seats: {free}",
        "inline_create": "Create a table first",
        "cmd_start": "play Durak",
        "cmd_durak": "open a table in this group",
        "cmd_nudges": "turn reminders on or off",
        "cmd_rules": "the rules in short",
        "cmd_me": "your candies and ratings",
        "cmd_puzzle": "the Durak puzzle of the day",
        "puzzle": "🧩 The puzzle of the day: one move keeps you from being the durak. Find it.",
        "puzzle_open": "Solve it",
        "me": "<b>{name}</b>\n🍬 Candies: <b>{balance}</b> ({today} of {cap} today)\n"
        "Rating, podkidnoy: <b>{podkidnoy}</b> ({podkidnoy_games} games)\n"
        "Rating, perevodnoy: <b>{perevodnoy}</b> ({perevodnoy_games} games)\n"
        "A rating with ? is provisional: its first 10 games.",
        "earned": "{name}: +{candies} 🍬",
        "earned_rated": "{name}: +{candies} 🍬, rating {before} → {after}",
        "menu": "Play",
    },
    "ru": {
        "welcome": "Привет, {name}! Сыграем в <b>дурака</b>.\n"
        "Играйте с компьютером или откройте стол для друзей и отправьте им приглашение.",
        "play_computer": "Играть с компьютером",
        "create_room": "Создать комнату для друзей",
        "rules": "Правила",
        "rules_text": "<b>Дурак</b> вкратце: 36 карт, по шесть каждому; последняя карта колоды "
        "показывает козырь. Атакующий ходит картой, защищающийся бьёт её старшей картой той "
        "же масти или козырем либо забирает карты. Остальные могут подкидывать карты того же "
        "достоинства, что уже лежат на столе. Когда колода кончилась, избавившийся от карт "
        "выходит из игры; последний, у кого остались карты, — <b>дурак</b>.",
        "seats_question": "Сколько игроков за столом?",
        "room_ready": "Ваш стол готов. Игроков: {n}.\n"
        "Пригласите друзей кнопкой ниже или отправьте им ссылку:\n{link}\n"
        "Игра начнётся, когда все места займут, или когда вы начнёте её с ботами на "
        "свободных местах.",
        "open_room": "Открыть комнату",
        "share_invite": "Отправить приглашение",
        "invite_text": "{name} приглашает вас сыграть в <b>дурака</b>. Игроков: {n}.",
        "join": "Присоединиться",
        "join_prompt": "Вас ждут за столом. Нажмите, чтобы сесть.",
        "no_room": "Этот стол закрыт. Откройте новый командой /start.",
        "busy": "Вы сейчас играете: сначала доиграйте.",
        "table_lobby": "<b>{host}</b> открывает стол: <b>дурак</b>. Игроков: {n}.\n{seats}\n"
        "Нажмите «Занять место». Игра начнётся, когда все места займут; {host} может начать "
        "сейчас с ботами на свободных местах.",
        "table_playing": "<b>Дурак</b>: игра идёт.\n{seats}",
        "table_closed": "<b>Дурак</b>: этот стол закрыт.",
        "free_seat": "свободно",
        "bot_seat": "бот",
        "bot_tag": "БОТ",
        "take_seat": "Занять место",
        "start_bots": "Начать с ботами",
        "open_table": "Открыть стол",
        "seated": "Место ваше. Откройте стол, чтобы играть.",
        "already_seated": "Вы уже за этим столом.",
        "table_full": "Все места заняты.",
        "table_started": "Игра уже началась.",
        "only_host": "Начать игру за этим столом может только {host}.",
        "result_durak": "Игра за столом {host} окончена: <b>{name}</b> — дурак.",
        "result_pogony": "Игра за столом {host} окончена: <b>{name}</b> — дурак, да ещё "
        "с погонами!",
        "result_draw": "Игра за столом {host} окончена: ничья.",
        "nudge": "Ваш ход за столом с игроками {names}!",
        "back_to_table": "Вернуться за стол",
        "nudges_stop": "Больше не напоминать",
        "nudges_off": "Напоминания о ходе выключены. /nudges включит их снова.",
        "nudges_on": "Напоминания о ходе включены. /nudges выключит их.",
        "group_only": "Отправьте /durak в группе, чтобы открыть там стол.",
        "inline_title": "Пригласить за стол",
        "inline_desc": "Игроков: {n}, свободных мест: {free}",
        "inline_create": "Сначала создайте стол",
        "cmd_start": "играть в дурака",
        "cmd_durak": "открыть стол в этой группе",
        "cmd_nudges": "включить или выключить напоминания",
        "cmd_rules": "правила вкратце",
        "cmd_me": "ваши конфеты и рейтинг",
        "cmd_puzzle": "задача дня по дураку",
        "puzzle": "🧩 Задача дня: один ход спасает от дурака. Найдите его.",
        "puzzle_open": "Решать",
        "me": "<b>{name}</b>\n🍬 Конфеты: <b>{balance}</b> (сегодня {today} из {cap})\n"
        "Рейтинг, подкидной: <b>{podkidnoy}</b> (игр: {podkidnoy_games})\n"
        "Рейтинг, переводной: <b>{perevodnoy}</b> (игр: {perevodnoy_games})\n"
        "Рейтинг со знаком ? предварительный: первые 10 игр.",
        "earned": "{name}: +{candies} 🍬",
        "earned_rated": "{name}: +{candies} 🍬, рейтинг {before} → {after}",
        "menu": "Играть",
    },
    "zh": {
        "welcome": "你好，{name}！来玩<b>傻瓜牌</b>吧。\n和电脑对战，或者为朋友开一桌并发送邀请。",
        "play_computer": "和电脑对战",
        "create_room": "为朋友创建房间",
        "rules": "规则",
        "rules_text": "<b>傻瓜牌</b>简介：共 36 张牌，每人六张；牌堆最后一张牌决定将牌花色。"
        "进攻者出一张牌；防守者用同花色更大的牌或将牌压过它，否则收下桌上的牌。"
        "其他玩家可以添加与桌上点数相同的牌。牌堆摸完后，出完手牌的人退出；"
        "最后还拿着牌的人就是<b>傻瓜</b>。",
        "seats_question": "这一桌有几位玩家？",
        "room_ready": "你的牌桌已准备好。玩家：{n} 人。\n"
        "用下面的按钮邀请朋友，或者把这个链接发给他们：\n{link}\n"
        "坐满后游戏开始；你也可以让机器人坐空位，立即开始。",
        "open_room": "打开房间",
        "share_invite": "发送邀请",
        "invite_text": "{name} 邀请你玩<b>傻瓜牌</b>。玩家：{n} 人。",
        "join": "加入",
        "join_prompt": "有一桌在等你。点击入座。",
        "no_room": "这一桌已关闭。用 /start 开一桌新的。",
        "busy": "你正在游戏中：请先打完这一局。",
        "table_lobby": "<b>{host}</b> 开了一桌<b>傻瓜牌</b>。玩家：{n} 人。\n{seats}\n"
        "点击“入座”。坐满后游戏开始；{host} 也可以让机器人坐空位，立即开始。",
        "table_playing": "<b>傻瓜牌</b>：游戏进行中。\n{seats}",
        "table_closed": "<b>傻瓜牌</b>：这一桌已关闭。",
        "free_seat": "空位",
        "bot_seat": "电脑",
        "bot_tag": "机器人",
        "take_seat": "入座",
        "start_bots": "和机器人开始",
        "open_table": "打开牌桌",
        "seated": "你已入座。打开牌桌开始游戏。",
        "already_seated": "你已经在这一桌了。",
        "table_full": "这一桌已坐满。",
        "table_started": "游戏已经开始了。",
        "only_host": "只有 {host} 可以开始这一桌。",
        "result_durak": "{host} 的牌桌游戏结束：<b>{name}</b> 是傻瓜。",
        "result_pogony": "{host} 的牌桌游戏结束：<b>{name}</b> 是傻瓜，还戴上了肩章！",
        "result_draw": "{host} 的牌桌游戏结束：平局。",
        "nudge": "轮到你出牌了，牌桌上有 {names}！",
        "back_to_table": "回到牌桌",
        "nudges_stop": "不再提醒",
        "nudges_off": "出牌提醒已关闭。发送 /nudges 可重新开启。",
        "nudges_on": "出牌提醒已开启。发送 /nudges 可关闭。",
        "group_only": "在群组中发送 /durak 即可在群里开一桌。",
        "inline_title": "邀请入桌",
        "inline_desc": "玩家：{n} 人，空位：{free} 个",
        "inline_create": "先创建一桌",
        "cmd_start": "玩傻瓜牌",
        "cmd_durak": "在本群开一桌",
        "cmd_nudges": "开启或关闭出牌提醒",
        "cmd_rules": "规则简介",
        "cmd_me": "你的糖果和等级分",
        "cmd_puzzle": "每日傻瓜牌谜题",
        "puzzle": "🧩 每日谜题：只有一步能让你不当傻瓜。找出它。",
        "puzzle_open": "去解题",
        "me": "<b>{name}</b>\n🍬 糖果：<b>{balance}</b>（今天 {today}/{cap}）\n"
        "等级分，添牌杜拉克：<b>{podkidnoy}</b>（{podkidnoy_games} 局）\n"
        "等级分，转移杜拉克：<b>{perevodnoy}</b>（{perevodnoy_games} 局）\n"
        "带 ? 的等级分是暂定的：前 10 局。",
        "earned": "{name}：+{candies} 🍬",
        "earned_rated": "{name}：+{candies} 🍬，等级分 {before} → {after}",
        "menu": "开始游戏",
    },
    "ja": {
        "welcome": "こんにちは、{name}さん！<b>ドゥラーク</b>で遊びましょう。\n"
        "コンピューターと対戦するか、友だちのためにテーブルを開いて招待を送りましょう。",
        "play_computer": "コンピューターと対戦",
        "create_room": "友だち用のルームを作る",
        "rules": "ルール",
        "rules_text": "<b>ドゥラーク</b>のあらまし：36枚のカードを6枚ずつ配り、山札の最後の1枚が"
        "切り札のスートを示します。攻撃側がカードを出し、守備側は同じスートの強いカードか"
        "切り札で受けるか、カードを引き取ります。ほかの人は場にある数字のカードを追加で"
        "出せます。山札がなくなった後、手札を出し切った人から抜け、最後までカードが残った人が"
        "<b>ドゥラーク</b>（ばか）です。",
        "seats_question": "何人で遊びますか？",
        "room_ready": "テーブルの準備ができました。プレイヤー：{n}人。\n"
        "下のボタンで友だちを招待するか、このリンクを送ってください：\n{link}\n"
        "席が埋まるとゲームが始まります。空いた席にボットを入れてすぐ始めることもできます。",
        "open_room": "ルームを開く",
        "share_invite": "招待を送る",
        "invite_text": "{name}さんが<b>ドゥラーク</b>に招待しています。プレイヤー：{n}人。",
        "join": "参加する",
        "join_prompt": "テーブルで待っています。タップして席に着きましょう。",
        "no_room": "このテーブルは閉じられました。/start で新しいテーブルを開いてください。",
        "busy": "いまゲーム中です。先にそのゲームを終えてください。",
        "table_lobby": "<b>{host}</b>さんが<b>ドゥラーク</b>のテーブルを開きました。"
        "プレイヤー：{n}人。\n{seats}\n"
        "「席に着く」をタップしてください。席が埋まるとゲームが始まります。"
        "{host}さんは空いた席にボットを入れてすぐ始めることもできます。",
        "table_playing": "<b>ドゥラーク</b>：ゲーム中です。\n{seats}",
        "table_closed": "<b>ドゥラーク</b>：このテーブルは閉じられました。",
        "free_seat": "空席",
        "bot_seat": "ボット",
        "bot_tag": "BOT",
        "take_seat": "席に着く",
        "start_bots": "ボットと始める",
        "open_table": "テーブルを開く",
        "seated": "席に着きました。テーブルを開いて遊びましょう。",
        "already_seated": "すでにこのテーブルに着いています。",
        "table_full": "このテーブルは満席です。",
        "table_started": "ゲームはもう始まっています。",
        "only_host": "このテーブルを始められるのは{host}さんだけです。",
        "result_durak": "{host}さんのテーブルのゲームが終わりました："
        "<b>{name}</b>さんがドゥラークです。",
        "result_pogony": "{host}さんのテーブルのゲームが終わりました："
        "<b>{name}</b>さんがドゥラーク、しかも肩章つきです！",
        "result_draw": "{host}さんのテーブルのゲームが終わりました：引き分けです。",
        "nudge": "{names}とのテーブルで、あなたの番です！",
        "back_to_table": "テーブルに戻る",
        "nudges_stop": "もう知らせない",
        "nudges_off": "手番のお知らせをオフにしました。/nudges でまたオンにできます。",
        "nudges_on": "手番のお知らせをオンにしました。/nudges でオフにできます。",
        "group_only": "グループで /durak を送ると、そこにテーブルを開けます。",
        "inline_title": "テーブルに招待",
        "inline_desc": "プレイヤー：{n}人、空席：{free}",
        "inline_create": "先にテーブルを作る",
        "cmd_start": "ドゥラークで遊ぶ",
        "cmd_durak": "このグループにテーブルを開く",
        "cmd_nudges": "手番のお知らせのオン・オフ",
        "cmd_rules": "ルールのあらまし",
        "cmd_me": "キャンディとレーティング",
        "cmd_puzzle": "今日のドゥラク・パズル",
        "puzzle": "🧩 今日のパズル：ドゥラクにならずに済む手はひとつだけ。見つけてください。",
        "puzzle_open": "解く",
        "me": "<b>{name}</b>\n🍬 キャンディ：<b>{balance}</b>（今日 {today}/{cap}）\n"
        "レーティング（ポドキドノイ）：<b>{podkidnoy}</b>（{podkidnoy_games} 局）\n"
        "レーティング（ペレヴォドノイ）：<b>{perevodnoy}</b>（{perevodnoy_games} 局）\n"
        "? 付きのレーティングは暫定です（最初の 10 局）。",
        "earned": "{name}：+{candies} 🍬",
        "earned_rated": "{name}：+{candies} 🍬、レーティング {before} → {after}",
        "menu": "遊ぶ",
    },
}


def text(lang: str, key: str, **values: object) -> str:
    """The message ``key`` in ``lang`` (English if the language is unknown)."""
    table = TEXTS.get(lang, TEXTS["en"])
    return table[key].format(**values)
