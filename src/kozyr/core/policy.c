/* The level-4 rollout policy: a mirror of src/kozyr/bots/heuristics.py and
 * rollout.py (_policy), on the core's state.  Same choices for the same u. */
#include "core.h"

#define TRUMP_BONUS 16

void k_tables(KTables *t, int trump_suit, int deck, int trump_aware) {
    int low = k_lowest_rank(deck);
    int ranks = 13 - low;
    int bonus = trump_aware ? TRUMP_BONUS : 0;
    for (int c = 0; c < 52; c++) t->cost[c] = k_rank(c) - low + (c / 13 == trump_suit ? bonus : 0);
    t->trumps = K_SUIT_MASK[trump_suit];
    t->deck = deck;
    t->ranks = ranks;
    t->high_trump = ranks * 5 / 9;
    t->cheap = ranks * 3 / 9;
    t->dump = ranks * 4 / 9;
    t->big_deck = deck / 4;
    t->low = low;
    t->aware = trump_aware;
}

static int cheapest(uint64_t mask, const int *cost) {
    int best = -1, best_cost = 1 << 30;
    while (mask) {
        int c = k_low(mask);
        if (cost[c] < best_cost) { best = c; best_cost = cost[c]; }
        mask &= mask - 1;
    }
    return best;
}

static int cheapest_cover(uint64_t options, const KTables *t) {
    if (t->aware) {
        uint64_t plain = options & ~t->trumps;
        return k_low(plain ? plain : options);
    }
    return cheapest(options, t->cost);
}

static uint64_t unbeatable(uint64_t cards, uint64_t threat, const uint64_t *beaters) {
    uint64_t out = 0;
    for (uint64_t m = cards; m; m &= m - 1) {
        int c = k_low(m);
        if (!(threat & beaters[c])) out |= 1ULL << c;
    }
    return out;
}

static uint64_t take_cheapest(uint64_t group, int room, const int *cost) {
    if (k_pop(group) <= room) return group;
    uint64_t out = 0;
    for (int i = 0; i < room; i++) {
        int c = cheapest(group, cost);
        out |= 1ULL << c;
        group &= ~(1ULL << c);
    }
    return out;
}

/* heuristics.choose_lead; threat < 0: unknown */
static uint64_t choose_lead(uint64_t hand, const KTables *t, int deck_count, int limit, int multiple,
                            int64_t threat, const uint64_t *beaters, const KStyle *st) {
    const int *cost = t->cost;
    uint64_t plain = st->trump_aware ? hand & ~t->trumps : hand;
    uint64_t pool = plain ? plain : hand;
    int room = multiple ? limit : 1;
    if (deck_count == 0 && st->counting && threat >= 0) {
        uint64_t sure = unbeatable(pool, (uint64_t)threat, beaters);
        if (sure) {
            int c = cheapest(sure, cost);
            return take_cheapest(sure & K_RANK_MASK[k_rank(c)], room, cost);
        }
    }
    int c = cheapest(pool, cost);
    if (room > 1 && st->pairs) {
        uint64_t group = pool & K_RANK_MASK[k_rank(c)];
        if ((group & (group - 1)) && (deck_count == 0 || cost[c] <= t->cheap))
            return take_cheapest(group, room, cost);
    }
    return 1ULL << c;
}

/* heuristics._assign: covers for targets[i:] from left, cheapest first. */
static int assign(const int *targets, int i, int n, uint64_t left, const uint64_t *beaters,
                  const int *cost, int *plan_card, int *plan_att) {
    if (i == n) return 1;
    int a = targets[i];
    uint64_t options = left & beaters[a];
    while (options) {
        int c = cheapest(options, cost);
        if (assign(targets, i + 1, n, left & ~(1ULL << c), beaters, cost, plan_card, plan_att)) {
            plan_card[i] = c;
            plan_att[i] = a;
            return 1;
        }
        options &= ~(1ULL << c);
    }
    return 0;
}

/* heuristics.cover_plan: fills plan (first pair is played); 0 if no full cover. */
static int cover_plan(uint64_t hand, const KState *s, const uint64_t *beaters, const KTables *t,
                      int *plan_card, int *plan_att, int *plan_len) {
    int open[K_MAX_TABLE], n = 0;
    for (int i = 0; i < s->table_len; i++)
        if (s->dfn[i] < 0) open[n++] = s->att[i];
    if (n == 1) {
        uint64_t options = hand & beaters[open[0]];
        if (!options) return 0;
        plan_card[0] = cheapest_cover(options, t);
        plan_att[0] = open[0];
        *plan_len = 1;
        return 1;
    }
    for (int i = 0; i < n; i++)
        if (!(hand & beaters[open[i]])) return 0;
    /* stable sort by descending cost (Python's sort is stable) */
    for (int i = 1; i < n; i++) {
        int a = open[i], j = i;
        while (j > 0 && t->cost[open[j - 1]] < t->cost[a]) {
            open[j] = open[j - 1];
            j--;
        }
        open[j] = a;
    }
    *plan_len = n;
    return assign(open, 0, n, hand, beaters, t->cost, plan_card, plan_att);
}

static inline void set_action(KAction *out, int seat, int kind, uint64_t cards, int target) {
    out->seat = seat;
    out->kind = kind;
    out->cards = cards;
    out->target = target;
}

/* heuristics.choose_defense; transfers are the legal transfer/show actions. */
static void choose_defense(const KState *s, int seat, uint64_t hand, const uint64_t *beaters,
                           const KTables *t, int deck_count, const KAction *transfers, int ntr,
                           const KStyle *st, double u, KAction *out) {
    const int *cost = t->cost;
    int plan_card[K_MAX_TABLE], plan_att[K_MAX_TABLE], plan_len = 0;
    int has_plan = cover_plan(hand, s, beaters, t, plan_card, plan_att, &plan_len);
    if (ntr) {
        const KAction *best = 0;
        int best_cost = 1 << 30;
        for (int i = 0; i < ntr; i++) {
            const KAction *act = &transfers[i];
            if (act->kind == A_SHOW) {
                *out = *act;
                return;
            }
            if (act->cards & (act->cards - 1)) continue;
            int k = cost[k_high(act->cards)];
            if (k < best_cost) { best = act; best_cost = k; }
        }
        if (best && (!has_plan || best_cost < TRUMP_BONUS || !st->trump_aware)) {
            *out = *best;
            return;
        }
    }
    if (!has_plan || u < st->random_take) {
        set_action(out, seat, A_TAKE, 0, -1);
        return;
    }
    if (st->take_early && deck_count > t->big_deck) {
        int trumps_used = 0, high = 0;
        for (int i = 0; i < plan_len; i++) {
            int c = plan_card[i];
            if ((1ULL << c) & t->trumps) {
                trumps_used++;
                if (cost[c] - TRUMP_BONUS >= t->high_trump) high = 1;
            }
        }
        if (high || trumps_used >= 2) {
            int worst = 0;
            for (int i = 0; i < s->table_len; i++) {
                int a = s->att[i];
                if (!((1ULL << a) & t->trumps) && cost[a] > worst) worst = cost[a];
            }
            if (s->table_len <= 2 && worst <= t->dump) {
                set_action(out, seat, A_TAKE, 0, -1);
                return;
            }
        }
    }
    set_action(out, seat, A_DEFEND, 1ULL << plan_card[0], plan_att[0]);
}

/* heuristics.choose_throw: the card to throw, or 0 to pass. */
static uint64_t choose_throw(uint64_t hand, uint64_t table_ranks, int taking, const KTables *t,
                             int deck_count, int64_t threat, const uint64_t *beaters,
                             const KStyle *st) {
    uint64_t cands = hand & table_ranks;
    if (!cands) return 0;
    const int *cost = t->cost;
    if (!st->trump_aware) return 1ULL << cheapest(cands, cost);
    uint64_t plain = cands & ~t->trumps;
    if (deck_count == 0) {
        if (taking) return 1ULL << cheapest(cands, cost);
        if (plain) return 1ULL << cheapest(plain, cost);
        if (st->counting && threat >= 0) {
            uint64_t sure = unbeatable(cands, (uint64_t)threat, beaters);
            if (sure) return 1ULL << cheapest(sure, cost);
        }
        return 0;
    }
    if (!plain) return 0;
    int c = cheapest(plain, cost);
    if (cost[c] <= (taking ? t->dump : t->cheap)) return 1ULL << c;
    return 0;
}

/* public.state_threat: what ``defender`` may hold as far as ``seat`` can tell. */
static int64_t state_threat(const KState *s, int seat, int defender) {
    uint64_t seen = s->hands[seat] | s->discard | (1ULL << s->trump);
    for (int i = 0; i < s->table_len; i++) {
        seen |= 1ULL << s->att[i];
        if (s->dfn[i] >= 0) seen |= 1ULL << s->dfn[i];
    }
    for (int x = 0; x < s->n; x++)
        if (x != defender) seen |= s->known[x];
    return (int64_t)(K_DECK_MASK[s->r.deck] & ~seen);
}

/* rollout._policy */
void k_policy_action(const KState *s, const KTables *t, const KStyle *st, double u, KAction *out) {
    int seat = s->to_move;
    uint64_t hand = s->hands[seat];
    int deck_count = s->stock_len;
    const uint64_t *beaters = K_BEATERS[s->trump_suit];
    if (s->phase == P_LEAD) {
        int64_t threat = -1;
        if (deck_count == 0 && st->counting) threat = state_threat(s, seat, s->defender);
        uint64_t cards =
            choose_lead(hand, t, deck_count, s->limit, s->r.lead_multiple, threat, beaters, st);
        set_action(out, seat, A_ATTACK, cards, -1);
        return;
    }
    if (s->phase == P_DEFEND) {
        KAction transfers[K_MAX_ACTIONS];
        int ntr = 0;
        if (s->r.perevodnoy && s->uncovered == s->table_len &&
            (hand & K_RANK_MASK[k_rank(s->att[0])])) {
            KAction acts[K_MAX_ACTIONS];
            int k = k_legal(s, acts);
            for (int i = 0; i < k; i++)
                if (acts[i].kind == A_TRANSFER || acts[i].kind == A_SHOW) transfers[ntr++] = acts[i];
        }
        choose_defense(s, seat, hand, beaters, t, deck_count, transfers, ntr, st, u, out);
        return;
    }
    if (s->phase == P_LAST_CALL) { /* rollout.last_call */
        if (u < st->attention)
            for (int i = 0; i < s->cheats_len; i++)
                if (s->cheats[i].cheater != seat) {
                    set_action(out, seat, A_ACCUSE, 1ULL << s->cheats[i].card, -1);
                    return;
                }
        set_action(out, seat, A_PASS, 0, -1);
        return;
    }
    int64_t threat = -1;
    if (deck_count == 0 && st->counting) threat = state_threat(s, seat, s->defender);
    uint64_t card = choose_throw(hand, s->table_ranks, s->taking, t, deck_count, threat, beaters, st);
    if (card) set_action(out, seat, A_THROW, card, -1);
    else set_action(out, seat, A_PASS, 0, -1);
}

/* One move of a playout: the heuristic, or with a chance eps a uniformly random move. */
void k_policy_step(KState *s, KRng *g, const KTables *t, const KStyle *st, double eps) {
    KAction acts[K_MAX_ACTIONS], a;
    if (k_uniform(g) < eps) {
        int k = k_legal(s, acts);
        a = acts[k_below(g, k)];
    } else {
        k_policy_action(s, t, st, k_uniform(g), &a);
    }
    k_do(s, &a);
}

/* rollout.playout: the heuristic with a chance eps of a uniformly random move. */
int k_policy_playout(KState *s, KRng *g, const KTables *t, const KStyle *st, double eps, int cap) {
    int steps = 0;
    while (s->phase != P_OVER && steps < cap) {
        k_policy_step(s, g, t, st, eps);
        steps++;
    }
    return steps;
}

/* k_policy_playout that stops early at a two-sided position with an empty
 * stock and at most ``max_cards`` cards in the hands (a perfect-information
 * endgame the caller solves or evaluates), at the start of a round only if
 * ``lead_only``; ``max_cards`` 0: never stops early. */
int k_policy_playout_to(KState *s, KRng *g, const KTables *t, const KStyle *st, double eps, int cap,
                        int max_cards, int lead_only) {
    int steps = 0;
    while (s->phase != P_OVER && steps < cap) {
        if (max_cards && s->stock_len == 0 && s->phase != P_LAST_CALL &&
            (!lead_only || s->phase == P_LEAD)) {
            int cards = 0, first = -1, count = 0, split = 0;
            for (int x = 0; x < s->n; x++) {
                cards += k_pop(s->hands[x]);
                if (s->active >> x & 1) {
                    if (first < 0) first = x;
                    else if (s->team[x] != s->team[first]) split = 1;
                    count++;
                }
            }
            if (count == 2 && split && cards <= max_cards) break;
        }
        k_policy_step(s, g, t, st, eps);
        steps++;
    }
    return steps;
}

/* rollout.reward */
double k_reward(const KState *s, int seat) {
    if (s->phase == P_OVER) {
        if (!s->has_result || s->durak < 0) return 0.5;
        return s->team[s->durak] == s->team[seat] ? 0.0 : 1.0;
    }
    int mine = k_pop(s->hands[seat]), more = 0, others = 0;
    for (int x = 0; x < s->n; x++)
        if (s->team[x] != s->team[seat]) {
            others++;
            if (k_pop(s->hands[x]) > mine) more++;
        }
    return others ? (double)more / others : 0.5;
}
