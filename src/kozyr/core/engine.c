/* The rules on C structs: a line-by-line mirror of src/kozyr/engine/state.py.
 * Each function names the reference method it follows. */
#include <stdlib.h>

#include "core.h"

uint64_t K_RANK_MASK[13];
uint64_t K_SUIT_MASK[4];
uint64_t K_BEATERS[4][52];
uint64_t K_DECK_MASK[53];

void k_init_tables(void) {
    for (int r = 0; r < 13; r++) {
        uint64_t m = 0;
        for (int s = 0; s < 4; s++) m |= 1ULL << (s * 13 + r);
        K_RANK_MASK[r] = m;
    }
    for (int s = 0; s < 4; s++) K_SUIT_MASK[s] = ((1ULL << 13) - 1) << (13 * s);
    for (int t = 0; t < 4; t++)
        for (int c = 0; c < 52; c++) {
            uint64_t higher = K_SUIT_MASK[c / 13] & ~((1ULL << (c + 1)) - 1);
            K_BEATERS[t][c] = higher | (c / 13 != t ? K_SUIT_MASK[t] : 0);
        }
    int sizes[3] = {24, 36, 52};
    for (int i = 0; i < 3; i++) {
        uint64_t m = 0;
        for (int r = k_lowest_rank(sizes[i]); r < 13; r++) m |= K_RANK_MASK[r];
        K_DECK_MASK[sizes[i]] = m;
    }
}

/* ------------------------------------------------------------ life cycle */
void k_pos_decref(KPos *p) {
    while (p && --p->refs == 0) {
        KPos *prev = p->prev;
        free(p);
        p = prev;
    }
}

#include <stddef.h>

void k_copy(KState *dst, const KState *src) {
    /* The cheat records in use only: most tables have none. */
    memcpy(dst, src, offsetof(KState, cheats) + sizeof(KCheat) * (size_t)src->cheats_len);
    if (dst->seen) dst->seen->refs++;
}

void k_release(KState *s) {
    k_pos_decref(s->seen);
    s->seen = NULL;
}

void k_setup_team(KState *s) {
    int tc = s->r.team_count;
    s->n = s->r.players;
    for (int seat = 0; seat < s->n; seat++) s->team[seat] = tc ? seat % tc : seat;
}

/* ------------------------------------------------------------ seat order */
static int next_active(const KState *s, int seat) {
    int n = s->n, x = seat;
    for (int i = 0; i < n; i++) {
        x = x + 1 < n ? x + 1 : 0;
        if (s->active >> x & 1) return x;
    }
    return seat;
}

static int next_opponent(const KState *s, int seat) {
    int n = s->n, x = seat, mine = s->team[seat];
    for (int i = 0; i < n; i++) {
        x = x + 1 < n ? x + 1 : 0;
        if ((s->active >> x & 1) && s->team[x] != mine) return x;
    }
    return seat;
}

/* GameState._throw_order */
static void throw_order(KState *s) {
    int d = s->defender, n = s->n, dteam = s->team[d];
    int8_t order[K_MAX_PLAYERS];
    int len = 0;
    order[len++] = s->attacker;
    int x = d;
    for (int i = 0; i < n - 1; i++) {
        x = x + 1 < n ? x + 1 : 0;
        if (x != s->attacker && (s->active >> x & 1) && s->team[x] != dteam) order[len++] = x;
    }
    if (s->r.neighbours) {
        int left = next_active(s, d);
        int right = d;
        for (int i = 0; i < n; i++) {
            right = right ? right - 1 : n - 1;
            if (s->active >> right & 1) break;
        }
        int k = 0;
        for (int i = 0; i < len; i++) {
            int y = order[i];
            if (y == s->attacker || y == left || y == right) order[k++] = y;
        }
        len = k;
    }
    memcpy(s->order, order, sizeof order);
    s->order_len = len;
}

void k_refresh_order(KState *s) { throw_order(s); }

int k_cap(const KState *s) {
    int frc = s->r.first_round_cap;
    if ((frc == FRC_FIRST_ROUND && s->rounds == 0) || (frc == FRC_UNTIL_BITO && s->bitos == 0))
        return K_FIRST_ROUND_CAP;
    return K_ATTACK_CAP;
}

static inline int imin(int a, int b) { return a < b ? a : b; }

/* GameState._start_round */
static void start_round(KState *s, int attacker) {
    s->attacker = s->starter = attacker;
    int d = s->defender = next_opponent(s, attacker);
    s->limit = imin(k_cap(s), k_pop(s->hands[d]));
    s->taking = 0;
    s->passed = s->shown = 0;
    s->last_play = 0;
    throw_order(s);
    s->phase = P_LEAD;
    s->to_move = attacker;
}

/* GameState._game_over_check */
static int game_over_check(KState *s, int last_defender) {
    uint8_t active = s->active;
    if (!s->r.team_count && (active & (active - 1))) return 0;
    int teams = 0, nteams = 0;
    for (int x = 0; x < s->n; x++)
        if (active >> x & 1) {
            int bit = 1 << s->team[x];
            if (!(teams & bit)) { teams |= bit; nteams++; }
        }
    if (nteams > 1) return 0;
    s->phase = P_OVER;
    s->to_move = -1;
    s->has_result = 1;
    s->pogony_result = s->repetition = 0;
    s->result_team = 0;
    if (!nteams) {
        s->durak = -1;
        return 1;
    }
    int durak = -1, best = -1;
    for (int x = 0; x < s->n; x++)
        if (active >> x & 1) {
            int k = k_pop(s->hands[x]);
            if (k > best) { best = k; durak = x; }
        }
    s->durak = durak;
    s->pogony_result = s->r.pogony && durak == last_defender && s->last_play != 0 &&
                       (s->last_play & ~K_RANK_MASK[4]) == 0;
    if (s->r.team_count)
        for (int x = 0; x < s->n; x++)
            if (s->team[x] == s->team[durak]) s->result_team |= 1 << x;
    return 1;
}

/* GameState._count_position (rule 9) */
static void count_position(KState *s, int reversible) {
    KPos *pos = malloc(sizeof(KPos));
    pos->refs = 1;
    pos->attacker = s->attacker;
    pos->cap = k_cap(s);
    memset(pos->hands, 0, sizeof pos->hands);
    memcpy(pos->hands, s->hands, sizeof(uint64_t) * s->n);
    if (!reversible) {
        k_pos_decref(s->seen);
        pos->prev = NULL;
        s->seen = pos;
        return;
    }
    int same = 0;
    for (KPos *p = s->seen; p; p = p->prev)
        if (p->attacker == pos->attacker && p->cap == pos->cap &&
            memcmp(p->hands, pos->hands, sizeof pos->hands) == 0)
            same++;
    if (same >= 2) {
        free(pos);
        s->phase = P_OVER;
        s->to_move = -1;
        s->has_result = 1;
        s->durak = -1;
        s->pogony_result = 0;
        s->result_team = 0;
        s->repetition = 1;
        return;
    }
    pos->prev = s->seen; /* takes over our reference */
    s->seen = pos;
}

/* GameState._end_round */
static void end_round(KState *s) {
    uint64_t table = 0;
    for (int i = 0; i < s->table_len; i++) {
        table |= 1ULL << s->att[i];
        if (s->dfn[i] >= 0) table |= 1ULL << s->dfn[i];
    }
    int d = s->defender, took = s->taking, n = s->n;
    if (took) {
        s->hands[d] |= table;
        s->known[d] |= table;
    } else {
        s->discard |= table;
        s->bitos++;
    }
    s->table_len = 0;
    s->uncovered = 0;
    s->table_ranks = 0;
    if (s->r.cheating) {
        s->plays_len = s->cheats_len = 0;
        s->cheat_cards = s->cleared = 0;
        s->pending = 0;
    }
    s->rounds++;
    int8_t order[K_MAX_PLAYERS + 1];
    int len = 0, x = s->starter;
    for (int i = 0; i < n; i++) {
        if (x != d && (s->active >> x & 1)) order[len++] = x;
        x = x + 1 < n ? x + 1 : 0;
    }
    order[len++] = d;
    int left = s->stock_len;
    if (s->stock_len) {
        for (int i = 0; i < len; i++) {
            int y = order[i];
            int need = K_HAND_SIZE - k_pop(s->hands[y]);
            while (need > 0 && s->stock_len) {
                int c = s->stock[--s->stock_len];
                s->hands[y] |= 1ULL << c;
                need--;
                if (!s->stock_len) {
                    s->trump_holder = y;
                    s->known[y] |= 1ULL << c;
                }
            }
        }
    }
    if (!s->stock_len)
        for (int i = 0; i < len; i++) {
            int y = order[i];
            if (!s->hands[y] && (s->active >> y & 1) && s->out_len < K_MAX_PLAYERS) {
                s->active &= ~(1 << y);
                s->out[s->out_len++] = y;
            }
        }
    if (game_over_check(s, d)) return;
    int nxt = (!took && (s->active >> d & 1)) ? d : next_active(s, d);
    start_round(s, nxt);
    if (s->r.repetition_draw) count_position(s, took && s->stock_len == left);
}

/* GameState._may_accuse */
static uint8_t may_accuse(const KState *s) {
    unsigned may = 0;
    for (int i = 0; i < s->plays_len; i++) {
        int p = s->plays[i];
        if (!(s->cleared >> (p & 63) & 1)) may |= ~(1u << (p >> K_PLAY_SEAT_SHIFT & 7));
    }
    return (uint8_t)(may & s->active);
}

/* GameState._next_in_last_call */
static void next_in_last_call(KState *s) {
    int n = s->n, x = s->defender;
    for (int i = 0; i < n; i++) {
        if (s->pending >> x & 1) {
            s->to_move = x;
            return;
        }
        x = x + 1 < n ? x + 1 : 0;
    }
}

/* GameState._close_round */
static void close_round(KState *s) {
    if (s->r.cheating) {
        s->pending = may_accuse(s);
        if (s->pending) {
            s->phase = P_LAST_CALL;
            next_in_last_call(s);
            return;
        }
    }
    end_round(s);
}

/* GameState._after_cover_or_pass */
static void after_cover_or_pass(KState *s) {
    if (s->table_len < s->limit) {
        uint64_t ranks = s->table_ranks;
        unsigned free_ = s->r.cheating ? ~(unsigned)s->marked : 0;
        for (int i = 0; i < s->order_len; i++) {
            int x = s->order[i];
            if (!(s->passed >> x & 1) && ((s->hands[x] & ranks) || ((free_ >> x & 1) && s->hands[x]))) {
                s->phase = P_THROW;
                s->to_move = x;
                return;
            }
        }
    }
    close_round(s);
}

/* _lead_cheat: the cheat card of a lead, -1 for a fair lead or no cheating lead. */
static int lead_cheat(uint64_t cards) {
    int r1 = -1, r2 = -1, n1 = 0, n2 = 0, c1 = -1, c2 = -1;
    for (uint64_t m = cards; m; m &= m - 1) {
        int c = k_low(m), r = k_rank(c);
        if (r1 < 0 || r == r1) { r1 = r; n1++; c1 = c; }
        else if (r2 < 0 || r == r2) { r2 = r; n2++; c2 = c; }
        else return -1;
    }
    if (r2 < 0) return -1;
    if (r1 > r2) { /* make rank 1 the lower */
        int t = r1; r1 = r2; r2 = t;
        t = n1; n1 = n2; n2 = t;
        t = c1; c1 = c2; c2 = t;
    }
    if (n2 == 1) return c2;
    if (n1 == 1) return c1;
    return -1;
}

/* GameState._transfer */
static void transfer(KState *s, int seat) {
    int nd = next_opponent(s, seat);
    s->attacker = seat;
    s->defender = nd;
    s->limit = imin(k_cap(s), k_pop(s->hands[nd]));
    throw_order(s);
    s->phase = P_DEFEND;
    s->to_move = nd;
}

/* GameState._note_play */
static void note_play(KState *s, int seat, int kind, uint64_t cards, int target) {
    int cheat = -1;
    if (kind == A_DEFEND) {
        if (!(cards & K_BEATERS[s->trump_suit][target])) cheat = k_high(cards);
    } else if (kind == A_THROW) {
        if (!(cards & s->table_ranks)) cheat = k_high(cards);
    } else if (kind == A_ATTACK) {
        cheat = lead_cheat(cards);
    }
    if (cheat >= 0) {
        KCheat *c = &s->cheats[s->cheats_len++];
        c->index = s->plays_len; c->card = cheat; c->cheater = seat;
        c->phase = s->phase; c->to_move = s->to_move; c->attacker = s->attacker;
        c->defender = s->defender; c->limit = s->limit; c->taking = s->taking;
        c->passed = s->passed; c->shown = s->shown; c->last_play = s->last_play;
        memcpy(c->order, s->order, sizeof c->order);
        c->order_len = s->order_len;
        s->cheat_cards |= 1ULL << cheat;
    }
    int tag = seat << K_PLAY_SEAT_SHIFT;
    if (kind == A_DEFEND) {
        s->plays[s->plays_len++] = (int16_t)(k_high(cards) | tag | K_PLAY_COVER);
        return;
    }
    for (; cards; cards &= cards - 1) s->plays[s->plays_len++] = (int16_t)(k_low(cards) | tag);
}

static void decline(KState *s, int seat) {
    if (seat >= 0) s->pending &= ~(1 << seat);
    if (s->pending) next_in_last_call(s);
    else end_round(s);
}

/* GameState._take_back */
static void take_back(KState *s, const KCheat *c) {
    int index = c->index, cheater = c->cheater;
    s->phase = c->phase; s->to_move = c->to_move; s->attacker = c->attacker;
    s->defender = c->defender; s->limit = c->limit; s->taking = c->taking;
    s->passed = c->passed; s->shown = c->shown; s->last_play = c->last_play;
    memcpy(s->order, c->order, sizeof s->order);
    s->order_len = c->order_len;
    for (int i = index; i < s->plays_len; i++) {
        int p = s->plays[i], card = p & 63, owner = p >> K_PLAY_SEAT_SHIFT & 7;
        s->hands[owner] |= 1ULL << card;
        s->known[owner] |= 1ULL << card;
        if (p & K_PLAY_COVER)
            for (int j = 0; j < s->table_len; j++)
                if (s->dfn[j] == card) { s->dfn[j] = -1; break; }
    }
    s->plays_len = index;
    int keep = 0;
    uint64_t table = 0, ranks = 0;
    for (int i = 0; i < index; i++) {
        int p = s->plays[i];
        if (!(p & K_PLAY_COVER)) keep++;
        table |= 1ULL << (p & 63);
        ranks |= K_RANK_MASK[k_rank(p & 63)];
    }
    s->table_len = keep;
    int unc = 0;
    for (int j = 0; j < keep; j++) unc += s->dfn[j] < 0;
    s->uncovered = unc;
    s->table_ranks = ranks;
    s->cleared &= table;
    s->pending = 0;
    s->marked |= 1 << cheater;
    if (s->phase == P_THROW) after_cover_or_pass(s);
}

/* GameState._accuse */
static void accuse(KState *s, int seat, int card) {
    if (s->cheat_cards >> card & 1) {
        int k = 0;
        while (s->cheats[k].card != card) k++;
        KCheat c = s->cheats[k]; /* take_back may not read a record it is dropping */
        s->cheats_len = k;
        uint64_t cc = 0;
        for (int i = 0; i < k; i++) cc |= 1ULL << s->cheats[i].card;
        s->cheat_cards = cc;
        take_back(s, &c);
        return;
    }
    s->marked |= 1 << seat;
    s->cleared |= 1ULL << card;
    if (s->phase == P_THROW) after_cover_or_pass(s);
    else if (s->phase == P_LAST_CALL) {
        s->pending &= may_accuse(s);
        decline(s, -1);
    }
}

/* GameState.do */
void k_do(KState *s, const KAction *a) {
    int seat = a->seat, kind = a->kind;
    uint64_t cards = a->cards;
    s->history_len++;
    switch (kind) {
    case A_PASS:
        if (s->phase == P_LAST_CALL) {
            decline(s, seat);
            return;
        }
        s->passed |= 1 << seat;
        after_cover_or_pass(s);
        return;
    case A_TAKE:
        s->taking = 1;
        if (s->r.throw_in_after_take) after_cover_or_pass(s);
        else close_round(s);
        return;
    case A_SHOW:
        s->known[seat] |= cards;
        s->shown |= 1 << seat;
        transfer(s, seat);
        return;
    case A_ACCUSE:
        accuse(s, seat, k_high(cards));
        return;
    default:
        break;
    }
    if (s->r.cheating) note_play(s, seat, kind, cards, a->target);
    s->hands[seat] &= ~cards;
    s->known[seat] &= ~cards;
    s->passed = 0;
    if (kind == A_DEFEND) {
        int i = 0;
        while (s->att[i] != a->target) i++;
        int c = k_high(cards);
        s->dfn[i] = c;
        s->table_ranks |= K_RANK_MASK[k_rank(c)];
        if (!--s->uncovered) after_cover_or_pass(s);
        return;
    }
    s->last_play = cards;
    while (cards) {
        int c = k_low(cards);
        s->att[s->table_len] = c;
        s->dfn[s->table_len] = -1;
        s->table_len++;
        s->table_ranks |= K_RANK_MASK[k_rank(c)];
        cards &= cards - 1;
        s->uncovered++;
    }
    if (kind == A_THROW && s->taking) {
        after_cover_or_pass(s);
        return;
    }
    if (kind == A_TRANSFER) {
        transfer(s, seat);
        return;
    }
    s->phase = P_DEFEND;
    s->to_move = s->defender;
}

/* ------------------------------------------------------- move generation */
static inline void push(KAction *out, int *k, int seat, int kind, uint64_t cards, int target) {
    KAction *a = &out[(*k)++];
    a->seat = seat;
    a->kind = kind;
    a->cards = cards;
    a->target = target;
}

/* _subsets: the non-empty subsets of ``mask`` with at most ``limit`` cards, ascending. */
static void push_subsets(KAction *out, int *k, int seat, int kind, uint64_t mask, int limit) {
    if (limit <= 0 || !mask) return;
    uint64_t sub = 0;
    do {
        sub = (sub - mask) & mask;
        if (sub && k_pop(sub) <= limit) push(out, k, seat, kind, sub, -1);
    } while (sub != mask);
}

/* _transfer_target, _can_transfer, _transfer_options */
static int can_transfer(const KState *s) {
    return s->r.perevodnoy && !s->taking && s->uncovered == s->table_len;
}

/* GameState._attack_rank */
static int attack_rank(const KState *s) {
    for (int i = 0; i < s->table_len; i++)
        if (!(s->cheat_cards >> s->att[i] & 1)) return k_rank(s->att[i]);
    return k_rank(s->att[0]);
}

/* GameState._add_accusations */
static void push_accusations(const KState *s, int seat, KAction *out, int *k) {
    if (!(s->active >> seat & 1)) return;
    for (int i = 0; i < s->plays_len; i++) {
        int p = s->plays[i], c = p & 63;
        if ((p >> K_PLAY_SEAT_SHIFT & 7) != seat && !(s->cleared >> c & 1))
            push(out, k, seat, A_ACCUSE, 1ULL << c, -1);
    }
}

/* GameState._add_cheating_leads */
static void push_cheating_leads(int seat, uint64_t hand, int limit, KAction *out, int *k) {
    for (int r = 0; r < 13; r++) {
        uint64_t same = hand & K_RANK_MASK[r];
        if (!same) continue;
        uint64_t others = hand & ~K_RANK_MASK[r];
        uint64_t sub = 0;
        do { /* _subsets(same, limit - 1), ascending */
            sub = (sub - same) & same;
            if (!sub || k_pop(sub) > limit - 1) continue;
            int single = k_pop(sub) == 1;
            for (uint64_t rest = others; rest; rest &= rest - 1) {
                uint64_t low = rest & -rest;
                if (single && k_rank(k_low(low)) < r) continue;
                push(out, k, seat, A_ATTACK, sub | low, -1);
            }
        } while (sub != same);
    }
}

static void transfer_options(const KState *s, int seat, uint64_t *same, int *room, uint64_t *show) {
    uint64_t hand = s->hands[seat];
    int rank = attack_rank(s);
    int nd = next_opponent(s, s->defender);
    *room = imin(k_cap(s), k_pop(s->hands[nd])) - s->table_len;
    *show = 0;
    if (s->r.show_trump && *room >= 0 && !(s->shown >> seat & 1))
        *show = hand & (1ULL << (s->trump_suit * 13 + rank));
    *same = hand & K_RANK_MASK[rank];
}

/* GameState.legal_actions: the same actions in the same order. */
int k_legal(const KState *s, KAction *out) {
    int k = 0, seat = s->to_move;
    switch (s->phase) {
    case P_THROW: {
        push(out, &k, seat, A_PASS, 0, -1);
        uint64_t cards = s->hands[seat] & s->table_ranks;
        while (cards) {
            push(out, &k, seat, A_THROW, cards & -cards, -1);
            cards &= cards - 1;
        }
        if (s->r.cheating) {
            if (!(s->marked >> seat & 1))
                for (cards = s->hands[seat] & ~s->table_ranks; cards; cards &= cards - 1)
                    push(out, &k, seat, A_THROW, cards & -cards, -1);
            push_accusations(s, seat, out, &k);
        }
        return k;
    }
    case P_DEFEND: {
        uint64_t hand = s->hands[seat];
        push(out, &k, seat, A_TAKE, 0, -1);
        const uint64_t *beaters = K_BEATERS[s->trump_suit];
        for (int i = 0; i < s->table_len; i++)
            if (s->dfn[i] < 0) {
                uint64_t cover = hand & beaters[s->att[i]];
                while (cover) {
                    push(out, &k, seat, A_DEFEND, cover & -cover, s->att[i]);
                    cover &= cover - 1;
                }
            }
        if (s->r.cheating && !(s->marked >> seat & 1))
            for (int i = 0; i < s->table_len; i++)
                if (s->dfn[i] < 0)
                    for (uint64_t cover = hand & ~beaters[s->att[i]]; cover; cover &= cover - 1)
                        push(out, &k, seat, A_DEFEND, cover & -cover, s->att[i]);
        if (can_transfer(s)) {
            uint64_t same, show;
            int room;
            transfer_options(s, seat, &same, &room, &show);
            push_subsets(out, &k, seat, A_TRANSFER, same, room);
            if (show) push(out, &k, seat, A_SHOW, show, -1);
        }
        if (s->r.cheating) push_accusations(s, seat, out, &k);
        return k;
    }
    case P_LEAD: {
        seat = s->attacker;
        uint64_t hand = s->hands[seat];
        for (int r = 0; r < 13; r++) {
            uint64_t same = hand & K_RANK_MASK[r];
            if (!same) continue;
            if (s->r.lead_multiple) {
                push_subsets(out, &k, seat, A_ATTACK, same, s->limit);
            } else {
                while (same) {
                    push(out, &k, seat, A_ATTACK, same & -same, -1);
                    same &= same - 1;
                }
            }
        }
        if (s->r.cheating && s->r.lead_multiple && s->limit > 1 && !(s->marked >> seat & 1))
            push_cheating_leads(seat, hand, s->limit, out, &k);
        return k;
    }
    case P_LAST_CALL:
        push(out, &k, seat, A_PASS, 0, -1);
        push_accusations(s, seat, out, &k);
        return k;
    default:
        return 0;
    }
}

int k_legal_for(const KState *s, int seat, KAction *out) {
    if (seat == s->to_move) return k_legal(s, out);
    int k = 0;
    if (s->r.cheating && s->phase != P_OVER && seat >= 0 && seat < s->n) {
        if (s->phase == P_LAST_CALL && (s->pending >> seat & 1)) push(out, &k, seat, A_PASS, 0, -1);
        push_accusations(s, seat, out, &k);
    }
    return k;
}

/* Legal exactly when it is in the legal list (the list is complete: every
 * subset, every cover, every throw); the reference's check() agrees (tested). */
int k_is_legal(const KState *s, const KAction *a) {
    if (s->phase == P_OVER) return 0;
    KAction acts[K_MAX_ACTIONS];
    int k = k_legal_for(s, a->seat, acts);
    for (int i = 0; i < k; i++)
        if (acts[i].seat == a->seat && acts[i].kind == a->kind && acts[i].cards == a->cards &&
            acts[i].target == a->target)
            return 1;
    return 0;
}

/* ------------------------------------------------------------ dealing */
static uint64_t splitmix_next(uint64_t *state) {
    uint64_t z = (*state += 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}

void k_rng_seed(KRng *g, uint64_t seed) {
    uint64_t st = seed;
    for (int i = 0; i < 4; i++) g->s[i] = splitmix_next(&st);
}

/* deal.shuffled_deck + Deal.from_seed + GameState.new (no named first attacker,
 * no previous durak: the lowest trump leads, else the lowest card). */
void k_new_seeded(KState *s, const KRules *r, uint64_t seed) {
    memset(s, 0, sizeof *s);
    s->r = *r;
    k_setup_team(s);
    int n = s->n;
    int8_t cards[52];
    int len = 0;
    uint64_t full = K_DECK_MASK[r->deck];
    while (full) {
        cards[len++] = k_low(full);
        full &= full - 1;
    }
    uint64_t st = seed, word = 0;
    int spare = 0;
    for (int i = len - 1; i > 0; i--) {
        uint64_t w;
        if (spare) {
            w = word & 0xFFFFFFFFULL;
        } else {
            word = splitmix_next(&st);
            w = word >> 32;
        }
        spare = !spare;
        int j = (int)((w * (uint64_t)(i + 1)) >> 32);
        int8_t tmp = cards[i];
        cards[i] = cards[j];
        cards[j] = tmp;
    }
    int dealt = K_HAND_SIZE * n;
    for (int k = 0; k < dealt; k++) s->hands[k % n] |= 1ULL << cards[k];
    s->trump_holder = -1;
    s->to_move = -1;
    s->durak = -1;
    s->active = (1 << n) - 1;
    if (dealt < len) {
        s->trump = cards[dealt];
        /* deck = rest[1:] + rest[0]; stock = reversed(deck) */
        s->stock[0] = cards[dealt];
        int m = 1;
        for (int k = len - 1; k > dealt; k--) s->stock[m++] = cards[k];
        s->stock_len = m;
    } else {
        s->trump = cards[dealt - 1];
        s->stock_len = 0;
        for (int x = 0; x < n; x++)
            if (s->hands[x] >> s->trump & 1) {
                s->trump_holder = x;
                s->known[x] |= 1ULL << s->trump;
            }
    }
    s->trump_suit = k_suit(s->trump);
    /* _first_attacker: lowest trump, else lowest (rank, suit, seat). */
    int first = -1, best = 99;
    uint64_t trumps = K_SUIT_MASK[s->trump_suit];
    for (int x = 0; x < n; x++) {
        uint64_t h = s->hands[x] & trumps;
        if (h && k_low(h) < best) { best = k_low(h); first = x; }
    }
    if (first < 0) {
        int bkey = 1 << 30;
        for (int x = 0; x < n; x++)
            for (uint64_t h = s->hands[x]; h; h &= h - 1) {
                int c = k_low(h);
                int key = (k_rank(c) * 4 + k_suit(c)) * 8 + x;
                if (key < bkey) { bkey = key; first = x; }
            }
    }
    start_round(s, first);
    if (r->repetition_draw) count_position(s, 0);
}

/* ------------------------------------------------------------ playouts */
int k_random_playout(KState *s, KRng *g, int cap) {
    KAction acts[K_MAX_ACTIONS];
    int steps = 0;
    while (s->phase != P_OVER && steps < cap) {
        int k = k_legal(s, acts);
        k_do(s, &acts[k_below(g, k)]);
        steps++;
    }
    return steps;
}
