/* Exact play once nothing is hidden: a mirror of src/kozyr/bots/endgame.py
 * (alpha-beta with a transposition table) on the core's state.
 *
 * The search uses it inside its playouts (issue 29): a playout that reaches a
 * two-sided position with an empty stock (every card's place is then known to
 * both players, so the game is one of perfect information) is scored by the
 * exact result instead of the level-4 policy's play, which gets about one
 * such endgame in four wrong (scripts/search_probe.py --endgames).
 *
 * Values are in halves (0: the side's player is the durak, 1: a draw, 2: not)
 * so that bounds compare exactly.  The table lives for one search (one
 * decision) and is shared by all its playouts: a position's value does not
 * depend on the deal that led to it.  Nothing allocates during a solve except
 * what k_do itself allocates (the repetition history).
 */
#include "solver.h"

#include <stdlib.h>

/* endgame.position_key: everything that decides how the game can go on. */
uint64_t k_position_key(const KState *s) {
    uint64_t h = 0xCBF29CE484222325ULL;
#define MIX(v) (h = (h ^ (uint64_t)(v)) * 0x100000001B3ULL, h ^= h >> 31)
    for (int x = 0; x < s->n; x++) MIX(s->hands[x] + (uint64_t)x);
    for (int i = 0; i < s->table_len; i++) MIX((uint64_t)(s->att[i] + 1) << 8 | (uint64_t)(s->dfn[i] + 1));
    MIX(s->table_len);
    MIX((uint64_t)s->phase | (uint64_t)(s->to_move + 1) << 8 | (uint64_t)(s->attacker + 1) << 16 |
        (uint64_t)(s->defender + 1) << 24 | (uint64_t)(s->starter + 1) << 32 |
        (uint64_t)(s->limit + 1) << 40 | (uint64_t)(s->taking + 1) << 48);
    MIX((uint64_t)s->passed | (uint64_t)s->shown << 8 | (uint64_t)s->stock_len << 16 |
        (uint64_t)s->active << 24 | (uint64_t)(s->rounds == 0) << 32 | (uint64_t)(s->bitos == 0) << 40);
#undef MIX
    return h ? h : 1; /* 0 marks an empty table slot */
}

/* endgame.two_sided: exactly two players (of different teams) hold cards. */
int k_two_sided(const KState *s) {
    int first = -1, count = 0;
    for (int x = 0; x < s->n; x++)
        if (s->active >> x & 1) {
            if (first < 0) first = x;
            else if (s->team[x] == s->team[first]) return 0;
            count++;
        }
    return count == 2;
}

int k_solver_init(KSolver *sv, int log2_entries, const KState *like, const KStyle *style) {
    sv->mask = (1u << log2_entries) - 1;
    sv->tt = calloc((size_t)sv->mask + 1, sizeof(KEntry));
    sv->acts = malloc(sizeof(KAction) * K_SOLVE_ACTIONS * K_SOLVE_DEPTH);
    if (!sv->tt || !sv->acts) {
        k_solver_free(sv);
        return 0;
    }
    k_tables(&sv->tables, like->trump_suit, like->r.deck, style->trump_aware);
    sv->style = *style;
    sv->nodes = sv->solves = sv->solved = sv->total_nodes = 0;
    return 1;
}

void k_solver_free(KSolver *sv) {
    free(sv->tt);
    free(sv->acts);
    sv->tt = NULL;
    sv->acts = NULL;
}

/* rollout.outcome, in halves, for ``seat``'s side. */
static int outcome2(const KState *s, int seat) {
    if (!s->has_result || s->durak < 0) return 1;
    return s->team[s->durak] == s->team[seat] ? 0 : 2;
}

/* Solver.ordered: legal actions, the policy's choice first, passing and taking last. */
static int ordered(KSolver *sv, const KState *s, KAction *out) {
    KAction acts[K_SOLVE_ACTIONS];
    int k = k_legal(s, acts), n = 0;
    if (k > 1) {
        KAction first;
        k_policy_action(s, &sv->tables, &sv->style, 1.0, &first);
        int have = 0;
        for (int i = 0; i < k; i++)
            if (acts[i].kind == first.kind && acts[i].cards == first.cards &&
                acts[i].target == first.target && acts[i].seat == first.seat)
                have = 1;
        if (have) out[n++] = first;
        for (int pass = 0; pass < 2; pass++)
            for (int i = 0; i < k; i++) {
                const KAction *a = &acts[i];
                int quiet = a->kind == A_PASS || a->kind == A_TAKE;
                if (quiet != pass) continue;
                if (have && a->kind == first.kind && a->cards == first.cards &&
                    a->target == first.target && a->seat == first.seat)
                    continue;
                out[n++] = *a;
            }
        return n;
    }
    memcpy(out, acts, sizeof(KAction) * (size_t)k);
    return k;
}

#define OUT_OF_BUDGET (-100)

/* Solver.value: the exact value (halves, for sv->side) if it lies strictly
 * between alpha and beta, else a bound on the right side of the window. */
static int value(KSolver *sv, const KState *s, int alpha, int beta, int depth) {
    if (s->phase == P_OVER) return outcome2(s, sv->side);
    uint64_t key = k_position_key(s);
    for (int i = 0; i < depth; i++)
        if (sv->path[i] == key) return 1; /* the position came round again: a draw */
    KEntry *e = &sv->tt[key & sv->mask];
    int lo = 0, hi = 2;
    if (e->key == key) {
        lo = e->lo;
        hi = e->hi;
    }
    if (lo >= beta || lo == hi) return lo;
    if (hi <= alpha) return hi;
    if (lo > alpha) alpha = lo;
    if (hi < beta) beta = hi;
    if (++sv->nodes > sv->budget || depth >= K_SOLVE_DEPTH) return OUT_OF_BUDGET;
    sv->path[depth] = key;
    int a0 = alpha, b0 = beta;
    int maximize = s->team[s->to_move] == s->team[sv->side];
    int best = maximize ? -1 : 3;
    KAction *acts = sv->acts + (size_t)depth * K_SOLVE_ACTIONS;
    int k = ordered(sv, s, acts);
    for (int i = 0; i < k; i++) {
        KState child;
        k_copy(&child, s);
        k_do(&child, &acts[i]);
        int v = value(sv, &child, alpha, beta, depth + 1);
        k_release(&child);
        if (v == OUT_OF_BUDGET) return OUT_OF_BUDGET;
        if (maximize) {
            if (v > best) {
                best = v;
                if (v > alpha) alpha = v;
            }
        } else if (v < best) {
            best = v;
            if (v < beta) beta = v;
        }
        if (alpha >= beta) break;
    }
    if (best <= a0) hi = best;
    else if (best >= b0) lo = best;
    else lo = hi = best;
    /* a bound from a wider window may be kept: only tighten one of the same position */
    if (e->key == key) {
        if (lo > e->lo) e->lo = (int8_t)lo;
        if (hi < e->hi) e->hi = (int8_t)hi;
    } else {
        e->key = key;
        e->lo = (int8_t)lo;
        e->hi = (int8_t)hi;
    }
    return best;
}

int k_solve(KSolver *sv, const KState *s, int side, long long budget) {
    if (s->r.cheating || !k_two_sided(s)) return -1;
    sv->side = side;
    sv->nodes = 0;
    sv->budget = budget;
    sv->solves++;
    int v = value(sv, s, -1, 3, 0);
    sv->total_nodes += sv->nodes;
    if (v == OUT_OF_BUDGET) return -1;
    sv->solved++;
    return v;
}
