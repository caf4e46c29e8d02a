/* A learned evaluation of perfect-information endgames (issue 29).
 *
 * Once the stock is empty and two players are left, every card's place is
 * known to both, and the game is one of perfect information.  The level-4
 * policy the playouts use plays such endgames badly (about one in four ends
 * the other way than exact play would, scripts/search_probe.py --endgames),
 * and solving each one exactly costs far more than a playout.  So the search
 * can stop a playout at the first such position at the start of a round and
 * score it with a small network trained on exactly solved endgames
 * (scripts/train_endgame_eval.py, which writes src/kozyr/bots/endgame_eval.json
 * from a seed; kozyr/bots/evaluation.py loads it).
 *
 * There is no Python mirror of the features: the training script reads them
 * from here (core.eval_features), so training and play see the same numbers.
 */
#include "eval.h"

#include <math.h>

/* The defender's cards that beat ``card`` (K_BEATERS restricted to a hand). */
static inline uint64_t beaters_in(uint64_t hand, int trump_suit, int card) {
    return hand & K_BEATERS[trump_suit][card];
}

/* Features of the attacker's side against the defender's (A and D). */
static void side_features(uint64_t a, uint64_t d, int trump_suit, int low, double *f) {
    uint64_t trumps = K_SUIT_MASK[trump_suit];
    int na = k_pop(a), nd = k_pop(d);
    int sure = 0, trump_only = 0, pairs = 0, cost = 0;
    for (uint64_t m = a; m; m &= m - 1) {
        int c = k_low(m);
        uint64_t b = beaters_in(d, trump_suit, c);
        if (!b) sure++;
        else if (!(b & ~trumps)) trump_only++;
        cost += k_rank(c) - low + ((1ULL << c) & trumps ? 9 : 0);
    }
    for (int r = low; r < 13; r++) pairs += k_pop(a & K_RANK_MASK[r]) >= 2;
    double inv = na ? 1.0 / na : 0.0;
    f[0] = na / 10.0;
    f[1] = k_pop(a & trumps) / 6.0;
    f[2] = sure * inv;
    f[3] = sure / 6.0;
    f[4] = trump_only * inv;
    f[5] = na ? cost * inv / 18.0 : 0.0;
    f[6] = pairs / 4.0;
    f[7] = na == 1;
    f[8] = na <= 2;
    f[9] = na ? (sure >= na - 1) : 0.0;
    (void)nd;
}

int k_eval_features(const KState *s, double *f) {
    if (s->stock_len != 0 || s->phase != P_LEAD || !k_two_sided_eval(s)) return 0;
    int att = s->attacker, dfn = s->defender;
    uint64_t a = s->hands[att], d = s->hands[dfn];
    int low = k_lowest_rank(s->r.deck);
    uint64_t trumps = K_SUIT_MASK[s->trump_suit];
    f[0] = 1.0;
    side_features(a, d, s->trump_suit, low, f + 1);
    side_features(d, a, s->trump_suit, low, f + 11);
    uint64_t all_trumps = (a | d) & trumps;
    int top = all_trumps ? k_high(all_trumps) : -1;
    f[21] = top >= 0 && ((a >> top) & 1);
    f[22] = (k_pop(a) - k_pop(d)) / 10.0;
    f[23] = s->r.perevodnoy;
    return 1;
}

/* Two active players of different teams (endgame.two_sided; solver.c has the same). */
int k_two_sided_eval(const KState *s) {
    int first = -1, count = 0;
    for (int x = 0; x < s->n; x++)
        if (s->active >> x & 1) {
            if (first < 0) first = x;
            else if (s->team[x] == s->team[first]) return 0;
            count++;
        }
    return count == 2;
}

int k_eval_load(KEval *e, const double *w, int n) {
    /* layout: features, hidden, W1 (hidden x features, row-major), b1, W2, b2 */
    if (n < 2) return 0;
    int nf = (int)w[0], nh = (int)w[1];
    if (nf != K_EVAL_FEATURES || nh < 1 || nh > K_EVAL_HIDDEN || n != 2 + nh * nf + nh + nh + 1)
        return 0;
    e->hidden = nh;
    const double *p = w + 2;
    for (int h = 0; h < nh; h++)
        for (int i = 0; i < nf; i++) e->w1[h][i] = *p++;
    for (int h = 0; h < nh; h++) e->b1[h] = *p++;
    for (int h = 0; h < nh; h++) e->w2[h] = *p++;
    e->b2 = *p;
    return 1;
}

double k_eval_net(const KEval *e, const double *f) {
    double out = e->b2;
    for (int h = 0; h < e->hidden; h++) {
        double z = e->b1[h];
        for (int i = 0; i < K_EVAL_FEATURES; i++) z += e->w1[h][i] * f[i];
        out += e->w2[h] * tanh(z);
    }
    return 1.0 / (1.0 + exp(-out));
}

double k_eval(const KEval *e, const KState *s) {
    double f[K_EVAL_FEATURES];
    if (!k_eval_features(s, f)) return -1.0;
    return k_eval_net(e, f);
}
