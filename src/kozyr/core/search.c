/* Information-set Monte Carlo tree search (single observer), after Cowling,
 * Powley & Whitehouse, "Information Set Monte Carlo Tree Search" (2012).
 *
 * One tree over the searching seat's information set: a node is a sequence of
 * actions from the root, shared by every deal of the hidden cards.  Each
 * iteration draws a fresh deal (a determinization, optionally weighted by what
 * the opponents' play suggests they hold, see kozyr/bots/inference.py), walks
 * down the tree choosing among the actions legal *in that deal* by UCB with
 * availability counts, adds one node, plays the rest of the game with the
 * level-4 rollout policy and backs up every mover's own reward.
 *
 * The budget is a number of iterations, so a seed and a view give the same
 * action on any machine; the wall-clock cap is only a safety net.
 */
#include "search.h" /* Python.h first: it sets the POSIX feature macros */

#include <math.h>
#include <stdlib.h>
#include <time.h>

#include "core.h"
#include "eval.h"
#include "solver.h"

typedef struct {
    KAction action; /* the action that leads here */
    int8_t player;  /* who played it: the node's value is theirs */
    int32_t child, sibling, parent;
    uint32_t visits, avail;
    double total;
} Node;

/* Children by (parent, action): an open-addressing table of node indices, so
 * that finding the child of each legal action costs one or two probes instead
 * of a walk along the sibling list (which, once the tree outgrows the cache,
 * was most of the time of a search at ten times level 10's budget).  The lists
 * stay: they give the order of the children, which the search's choices follow. */
typedef struct {
    int32_t *slot; /* -1: empty */
    uint32_t mask, count;
} Children;

static uint32_t child_hash(int parent, const KAction *a) {
    uint64_t h = a->cards * 0x9E3779B97F4A7C15ULL;
    h ^= (uint64_t)(uint8_t)a->kind << 56 ^ (uint64_t)(uint8_t)a->target << 48 ^
         (uint64_t)(uint8_t)a->seat << 40;
    h ^= (uint64_t)(uint32_t)parent * 0xC2B2AE3D27D4EB4FULL;
    h ^= h >> 31;
    h *= 0xBF58476D1CE4E5B9ULL;
    return (uint32_t)(h >> 32);
}

/* The table starts small and doubles as the tree grows (at most half full), so
 * a search stopped early by its time cap never pays for clearing a table sized
 * for its whole budget (hundreds of megabytes at 40 million iterations). */
#define CHILDREN_START 4096u

static int children_init(Children *t) {
    t->mask = CHILDREN_START - 1;
    t->count = 0;
    t->slot = malloc(sizeof(int32_t) * CHILDREN_START);
    if (!t->slot) return 0;
    memset(t->slot, 0xFF, sizeof(int32_t) * CHILDREN_START);
    return 1;
}

typedef struct {
    int n, seat;
    int8_t pool[52];
    int npool;
    int slots[K_MAX_PLAYERS]; /* hidden cards each hand must receive */
    int deck_hidden;          /* hidden cards in the deck (the face-up trump is seen) */
    int weighted;
    double w[K_MAX_PLAYERS][52];
} Sampler;

/* A deal of the hidden cards: the template with every hand and the deck filled.
 * Cards are placed one by one in random order, each into a hand (or the deck)
 * with odds proportional to the room left there times that seat's weight for
 * the card; with all weights 1 this is a uniformly random deal. */
static void determinize(const KState *tmpl, const Sampler *sp, KRng *g, KState *out) {
    k_copy(out, tmpl);
    int8_t cards[52];
    int m = sp->npool;
    memcpy(cards, sp->pool, (size_t)m);
    for (int i = m - 1; i > 0; i--) {
        int j = (int)k_below(g, (uint32_t)(i + 1));
        int8_t t = cards[i];
        cards[i] = cards[j];
        cards[j] = t;
    }
    int room[K_MAX_PLAYERS + 1];
    for (int x = 0; x < sp->n; x++) {
        room[x] = sp->slots[x];
        if (x != sp->seat) out->hands[x] = tmpl->known[x];
    }
    room[sp->n] = sp->deck_hidden;
    int deck_len = 0;
    int8_t deck[52];
    for (int i = 0; i < m; i++) {
        int c = cards[i];
        int place = -1;
        if (!sp->weighted) {
            int total = 0;
            for (int p = 0; p <= sp->n; p++) total += room[p];
            int r = (int)k_below(g, (uint32_t)total);
            for (int p = 0; p <= sp->n; p++) {
                if (r < room[p]) { place = p; break; }
                r -= room[p];
            }
        } else {
            double wt[K_MAX_PLAYERS + 1], total = 0;
            for (int p = 0; p <= sp->n; p++) {
                wt[p] = room[p] * (p < sp->n ? sp->w[p][c] : 1.0);
                total += wt[p];
            }
            if (total <= 0) { /* every weight zero: fall back to room alone */
                for (int p = 0; p <= sp->n; p++) { wt[p] = room[p]; total += wt[p]; }
            }
            double r = k_uniform(g) * total;
            for (int p = 0; p <= sp->n; p++) {
                if (room[p] && r < wt[p]) { place = p; break; }
                r -= wt[p];
            }
            if (place < 0)
                for (int p = sp->n; p >= 0; p--)
                    if (room[p]) { place = p; break; }
        }
        room[place]--;
        if (place == sp->n) deck[deck_len++] = c;
        else out->hands[place] |= 1ULL << c;
    }
    if (tmpl->stock_len) {
        out->stock[0] = tmpl->trump;
        for (int i = 0; i < deck_len; i++) out->stock[1 + i] = deck[i];
        out->stock_len = (int8_t)(1 + deck_len);
    }
}

static int same_action(const KAction *a, const KAction *b) {
    return a->kind == b->kind && a->cards == b->cards && a->target == b->target && a->seat == b->seat;
}

/* The child of ``parent`` reached by ``a``, or -1. */
static int child_find(const Children *t, const Node *nodes, int parent, const KAction *a) {
    uint32_t i = child_hash(parent, a) & t->mask;
    for (int32_t c; (c = t->slot[i]) >= 0; i = (i + 1) & t->mask)
        if (nodes[c].parent == parent && same_action(&nodes[c].action, a)) return c;
    return -1;
}

static void child_put(Children *t, const Node *nodes, int index) {
    uint32_t i = child_hash(nodes[index].parent, &nodes[index].action) & t->mask;
    while (t->slot[i] >= 0) i = (i + 1) & t->mask;
    t->slot[i] = index;
    t->count++;
}

/* Room for one more child: doubles the table when it would pass half full;
 * 0 when it cannot (out of memory), and the tree then stops growing. */
static int children_room(Children *t, const Node *nodes) {
    if (2u * (t->count + 1) <= t->mask + 1) return 1;
    uint32_t size = 2u * (t->mask + 1);
    int32_t *slot = malloc(sizeof(int32_t) * size);
    if (!slot) return 2u * t->count < t->mask; /* keep going, fuller, while it can */
    memset(slot, 0xFF, sizeof(int32_t) * size);
    int32_t *old = t->slot;
    uint32_t old_size = t->mask + 1;
    t->slot = slot;
    t->mask = size - 1;
    t->count = 0;
    for (uint32_t i = 0; i < old_size; i++)
        if (old[i] >= 0) child_put(t, nodes, old[i]);
    free(old);
    return 1;
}

static double now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

typedef struct {
    int iterations;
    double c;          /* UCB exploration constant */
    double eps;        /* rollout: chance of a random move */
    int rollout_cap;
    double time_cap;   /* seconds; safety net */
    KStyle style;
    /* Issue 29 (0 / NULL everywhere: issue 12's search, which the frozen isN bots play) */
    double root_c;     /* > 0: the UCB exploration constant at the root (else c) */
    const KEval *eval; /* non-NULL: a playout stops at the first round that starts
                          with an empty stock and two sides, scored by this network */
    double opp_shrink; /* > 0: an opponent's reply is scored by the deals in which the
                          opponent held a hand of the same class (its trumps, capped
                          at SHRINK_CLASSES - 1), that mean shrunk towards the
                          reply's mean over all deals with opp_shrink pseudo-visits:
                          the tree's opponents choose by what they hold, while every
                          class shares one subtree below (a tree split by class
                          thins its statistics: docs/bots.md) */
    double smooth;     /* > 0: Smooth UCT (Heinrich & Silver 2015) below the root: at a
                          node whose available children have n visits in all, the
                          child is chosen by UCB only with chance
                          eta = max(0.1, 0.9 / (1 + smooth * sqrt(n))), else drawn
                          in proportion to the children's visits (the node's average
                          strategy), so that the tree's players mix their replies as
                          its statistics say instead of each playing a best response
                          to the other's latest choices */
} Params;

/* The classes of opp_shrink: an opponent's hand with 0, 1, 2 or 3+ trumps. */
#define SHRINK_CLASSES 4

typedef struct {
    int iterations, nodes, timed_out;
    long long rollout_steps;
    long long evaluated; /* playouts cut short by the network */
} Stats;

/* Every seat's reward from the network's value ``v`` for the attacker of a
 * two-sided position: the defender's side gets 1 - v, players already out 1. */
static void eval_rewards(const KState *s, double v, double *reward_of) {
    int at = s->team[s->attacker], df = s->team[s->defender];
    for (int x = 0; x < s->n; x++)
        reward_of[x] = s->team[x] == at ? v : s->team[x] == df ? 1.0 - v : 1.0;
}

/* Debug statistics (search(..., debug=True)): where the iterations go.  Only
 * filled when asked for; the search itself runs the same either way (no random
 * numbers are drawn for them). */
#define DBG_DEPTHS 64
#define DBG_ROUNDS 16
typedef struct {
    uint64_t *deal_hash;           /* one per iteration: which determinization */
    uint32_t *half_visits;         /* root children's visits at half the budget */
    long long depth_hist[DBG_DEPTHS];  /* tree edges walked per iteration */
    long long rounds_hist[DBG_ROUNDS]; /* rounds ended (refills) inside the tree walk */
    long long over_in_tree;        /* iterations whose game ended inside the tree */
    long long endgame_leaves;      /* playouts from an empty stock with two sides left */
    long long playout_from_round;  /* playouts starting in a later round than the root's */
    /* opp_shrink: over the opponents' replies of min_visits, how many there are,
     * their classes with a visit, the visits the classes hold against the
     * replies' own, and the visit-weighted gap between a class's mean and the
     * reply's pooled mean (how far the hand's class moves a reply's value) */
    int shrink_on;
    double sh_replies, sh_classes, sh_class_visits, sh_visits, sh_gap;
} Debug;

/* A hash of a determinization: every hand and the stock, in order. */
static uint64_t deal_hash(const KState *s) {
    uint64_t h = 0x9E3779B97F4A7C15ULL;
    for (int x = 0; x < s->n; x++) h = (h ^ s->hands[x]) * 0x100000001B3ULL + (uint64_t)x;
    for (int i = 0; i < s->stock_len; i++) h = (h ^ (uint64_t)s->stock[i]) * 0x100000001B3ULL;
    return h ^ (h >> 29);
}

/* A visited child's UCB score: its mean reward plus exploration ``c`` over the
 * deals in which it was available. */
static double ucb(const Node *ch, double c) {
    return (ch->visits > 0 ? ch->total / ch->visits : 0) +
           c * sqrt(log((double)ch->avail) / ch->visits);
}

static int active_count(const KState *s) {
    int k = 0;
    for (int x = 0; x < s->n; x++) k += (s->active >> x) & 1;
    return k;
}

/* The class of ``seat``'s hand in this deal for opp_shrink: its trumps, at
 * most SHRINK_CLASSES - 1. */
static int shrink_class(const KState *s, int seat) {
    int trumps = k_pop(s->hands[seat] & K_SUIT_MASK[s->trump_suit]);
    return trumps < SHRINK_CLASSES - 1 ? trumps : SHRINK_CLASSES - 1;
}

/* Debug figures count the nodes visited at least this many times. */
#define DBG_MIN_VISITS 100
/* Debug: the opp_shrink figures of the Debug struct, over the opponents'
 * replies visited at least DBG_MIN_VISITS times. */
static void shrink_figures(Debug *dbg, const Node *nodes, const uint32_t *cls_visits,
                           const double *cls_total, int used, int seat) {
    dbg->shrink_on = 1;
    for (int i = 1; i < used; i++) {
        const Node *nd = &nodes[i];
        if (nd->player < 0 || nd->player == seat || nd->visits < DBG_MIN_VISITS) continue;
        double pooled = nd->total / nd->visits;
        dbg->sh_replies++;
        dbg->sh_visits += nd->visits;
        for (int c = 0; c < SHRINK_CLASSES; c++) {
            uint32_t n = cls_visits[(size_t)i * SHRINK_CLASSES + (size_t)c];
            if (!n) continue;
            dbg->sh_classes++;
            dbg->sh_class_visits += n;
            dbg->sh_gap += n * fabs(cls_total[(size_t)i * SHRINK_CLASSES + (size_t)c] / n - pooled);
        }
    }
}

/* The search proper: fills best (an index into cands) and per-candidate visits/values. */
static int ismcts(const KState *tmpl, const Sampler *sp, const KAction *cands, int ncands,
                  const Params *pp, uint64_t seed, uint32_t *visits, double *values, Stats *st,
                  Node **keep, Debug *dbg) {
    int cap_nodes = pp->iterations + ncands + 2;
    Node *nodes = malloc(sizeof(Node) * (size_t)cap_nodes);
    Children kids = {NULL, 0, 0};
    /* opp_shrink: each node's visits and rewards per class of its mover's hand */
    size_t shrink_cells = pp->opp_shrink > 0 ? (size_t)cap_nodes * SHRINK_CLASSES : 0;
    uint32_t *cls_visits = shrink_cells ? calloc(shrink_cells, sizeof(uint32_t)) : NULL;
    double *cls_total = shrink_cells ? calloc(shrink_cells, sizeof(double)) : NULL;
    /* what the cleanup at the end frees: set before the first jump there */
    int best = -1; /* -1: out of memory */
    if (!nodes || (shrink_cells && (!cls_visits || !cls_total)) || !children_init(&kids))
        goto cleanup;
    int path_cls[4096]; /* the class a step's opponent chose in (-1: not scored by class) */
    int used = 1;
    memset(&nodes[0], 0, sizeof(Node));
    nodes[0].child = nodes[0].sibling = nodes[0].parent = -1;
    nodes[0].player = -1;
    /* the root's children are the candidates, in the order given */
    int prev = -1;
    for (int i = 0; i < ncands; i++) {
        Node *nd = &nodes[used];
        memset(nd, 0, sizeof *nd);
        nd->action = cands[i];
        nd->player = cands[i].seat;
        nd->child = nd->sibling = -1;
        nd->parent = 0;
        if (!children_room(&kids, nodes)) goto cleanup;
        child_put(&kids, nodes, used);
        if (prev < 0) nodes[0].child = used;
        else nodes[prev].sibling = used;
        prev = used++;
    }
    KTables tables;
    k_tables(&tables, tmpl->trump_suit, tmpl->r.deck, pp->style.trump_aware);
    KRng g;
    k_rng_seed(&g, seed);
    KAction acts[K_MAX_ACTIONS];
    int path[4096];
    double start = now();
    int it;
    for (it = 0; it < pp->iterations; it++) {
        if ((it & 63) == 63 && now() - start > pp->time_cap) {
            st->timed_out = 1;
            break;
        }
        if (dbg && it == pp->iterations / 2) {
            int ch = nodes[0].child;
            for (int i = 0; i < ncands; i++, ch = nodes[ch].sibling) dbg->half_visits[i] = nodes[ch].visits;
        }
        KState s;
        determinize(tmpl, sp, &g, &s);
        if (dbg) dbg->deal_hash[it] = deal_hash(&s);
        int node = 0, depth = 0;
        path_cls[depth] = -1;
        path[depth++] = 0;
        int expanded = 0;
        while (s.phase != P_OVER && !expanded && depth < 4000) {
            int k;
            if (node == 0) {
                k = ncands;
                memcpy(acts, cands, sizeof(KAction) * (size_t)ncands);
            } else {
                k = k_legal(&s, acts);
            }
            /* children available in this deal; actions with no child yet */
            int best = -1, untried[K_MAX_ACTIONS], nu = 0;
            int matched[K_MAX_ACTIONS], nm = 0;
            int opponent = node != 0 && k > 0 && acts[0].seat != sp->seat;
            int shrink_cls = cls_visits && opponent ? shrink_class(&s, acts[0].seat) : -1;
            for (int i = 0; i < k; i++) {
                int found = nodes[node].child < 0 ? -1 : child_find(&kids, nodes, node, &acts[i]);
                if (found < 0) untried[nu++] = i;
                else {
                    nodes[found].avail++;
                    matched[nm++] = found;
                }
            }
            /* a new child is the level-4 policy's move if that is untried */
            KAction hint;
            int have_hint = 0;
            if (node != 0 && nu > 0) {
                k_policy_action(&s, &tables, &pp->style, 1.0, &hint);
                have_hint = 1;
            }
            int unvisited = -1;
            for (int i = 0; i < nm; i++)
                if (nodes[matched[i]].visits == 0) { unvisited = matched[i]; break; }
            if (unvisited >= 0) { /* the root's candidates start unvisited */
                best = unvisited;
                expanded = 1;
            } else if (nu > 0 && used < cap_nodes && children_room(&kids, nodes)) {
                int pick = -1;
                if (have_hint)
                    for (int i = 0; i < nu; i++)
                        if (same_action(&acts[untried[i]], &hint)) { pick = untried[i]; break; }
                if (pick < 0) pick = untried[k_below(&g, (uint32_t)nu)];
                Node *nd = &nodes[used];
                memset(nd, 0, sizeof *nd);
                nd->action = acts[pick];
                nd->player = acts[pick].seat;
                nd->child = -1;
                nd->sibling = nodes[node].child;
                nd->parent = node;
                nd->avail = 1;
                nodes[node].child = used;
                child_put(&kids, nodes, used);
                best = used++;
                expanded = 1;
            } else if (pp->smooth > 0 && node != 0 && nm > 1) { /* Smooth UCT: the average strategy */
                /* with the shrink, an opponent's average strategy is its class's: the
                 * replies it chose when it held a hand of this class */
                double share[K_MAX_ACTIONS], n = 0;
                for (int i = 0; i < nm; i++) {
                    share[i] = shrink_cls >= 0
                                   ? cls_visits[(size_t)matched[i] * SHRINK_CLASSES + (size_t)shrink_cls]
                                   : nodes[matched[i]].visits;
                    n += share[i];
                }
                double eta = 0.9 / (1 + pp->smooth * sqrt(n));
                if (eta < 0.1) eta = 0.1;
                if (n > 0 && k_uniform(&g) >= eta) {
                    double r = k_uniform(&g) * n;
                    for (int i = 0; i < nm && best < 0; i++) {
                        r -= share[i];
                        if (r < 0 || i == nm - 1) best = matched[i];
                    }
                }
            }
            if (best < 0) { /* UCB, as every node chose before Smooth UCT */
                double best_score = -1e300;
                double c = node == 0 && pp->root_c > 0 ? pp->root_c : pp->c;
                for (int i = 0; i < nm; i++) {
                    Node *ch = &nodes[matched[i]];
                    double score = ucb(ch, c);
                    if (shrink_cls >= 0) { /* the class's mean in place of the pooled one */
                        size_t at = (size_t)matched[i] * SHRINK_CLASSES + (size_t)shrink_cls;
                        double pooled = ch->total / ch->visits;
                        score += (cls_total[at] + pp->opp_shrink * pooled) /
                                     (cls_visits[at] + pp->opp_shrink) -
                                 pooled;
                    }
                    if (score > best_score) { best_score = score; best = matched[i]; }
                }
                if (best < 0) break; /* nothing available (cannot happen in a legal state) */
            }
            path_cls[depth] = shrink_cls;
            k_do(&s, &nodes[best].action);
            node = best;
            path[depth++] = node;
        }
        if (dbg) {
            dbg->depth_hist[depth - 1 < DBG_DEPTHS ? depth - 1 : DBG_DEPTHS - 1]++;
            int r = (s.rounds - tmpl->rounds);
            dbg->rounds_hist[r < DBG_ROUNDS ? r : DBG_ROUNDS - 1]++;
            if (s.phase == P_OVER) dbg->over_in_tree++;
            else {
                if (s.stock_len == 0 && active_count(&s) == 2) dbg->endgame_leaves++;
                if (s.rounds != tmpl->rounds) dbg->playout_from_round++;
            }
        }
        double reward_of[K_MAX_PLAYERS];
        int scored = 0; /* by the network */
        if (pp->eval) {
            if (s.phase != P_OVER)
                st->rollout_steps += k_policy_playout_to(&s, &g, &tables, &pp->style, pp->eps,
                                                         pp->rollout_cap, 4 * 52, 1);
            if (s.phase != P_OVER && s.stock_len == 0 && s.phase != P_LAST_CALL) {
                double v = k_eval(pp->eval, &s);
                if (v >= 0) {
                    eval_rewards(&s, v, reward_of);
                    scored = 1;
                    st->evaluated++;
                }
            }
        }
        if (!scored) {
            if (s.phase != P_OVER)
                st->rollout_steps += k_policy_playout(&s, &g, &tables, &pp->style, pp->eps, pp->rollout_cap);
            for (int x = 0; x < s.n; x++) reward_of[x] = k_reward(&s, x);
        }
        for (int i = 0; i < depth; i++) {
            Node *nd = &nodes[path[i]];
            nd->visits++;
            if (nd->player < 0) continue;
            nd->total += reward_of[nd->player];
            if (path_cls[i] >= 0) {
                size_t at = (size_t)path[i] * SHRINK_CLASSES + (size_t)path_cls[i];
                cls_visits[at]++;
                cls_total[at] += reward_of[nd->player];
            }
        }
        k_release(&s);
    }
    st->iterations = it;
    st->nodes = used;
    best = 0;
    int ch = nodes[0].child;
    for (int i = 0; i < ncands; i++, ch = nodes[ch].sibling) {
        visits[i] = nodes[ch].visits;
        values[i] = nodes[ch].visits ? nodes[ch].total / nodes[ch].visits : 0;
        if (visits[i] > visits[best] || (visits[i] == visits[best] && values[i] > values[best]))
            best = i;
    }
    if (dbg && cls_visits) shrink_figures(dbg, nodes, cls_visits, cls_total, used, sp->seat);
cleanup:
    free(cls_visits);
    free(cls_total);
    free(kids.slot);
    if (keep && best >= 0) *keep = nodes; /* the caller reads the tree (debug) and frees it */
    else free(nodes);
    return best;
}

/* Branching of the tree below the root (debug): for every node visited at least
 * ``min_visits`` times whose children are moves of ``who`` (the searching seat,
 * or any opponent), the number of children and the effective number (the
 * exponential of the entropy of their visit shares), summed with the count. */
static void branching(const Node *nodes, int used, int seat, int opponents, uint32_t min_visits,
                      double *count, double *children, double *effective) {
    *count = *children = *effective = 0;
    for (int i = 1; i < used; i++) {
        const Node *nd = &nodes[i];
        if (nd->visits < min_visits || nd->child < 0) continue;
        int mover = nodes[nd->child].player;
        if ((mover != seat) != (opponents != 0)) continue;
        double n = 0, k = 0, h = 0;
        for (int c = nd->child; c >= 0; c = nodes[c].sibling) { n += nodes[c].visits; k++; }
        if (n <= 0) continue;
        for (int c = nd->child; c >= 0; c = nodes[c].sibling)
            if (nodes[c].visits) {
                double p = nodes[c].visits / n;
                h -= p * log(p);
            }
        *count += 1;
        *children += k;
        *effective += exp(h);
    }
}

static int cmp_u64(const void *a, const void *b) {
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

/* The debug statistics as a dict (None-safe: NULL with an exception set). */
static PyObject *debug_dict(const Debug *dbg, const Node *nodes, int used, int iterations,
                            int ncands, int seat) {
    uint64_t *h = dbg->deal_hash;
    qsort(h, (size_t)iterations, sizeof *h, cmp_u64);
    int distinct = iterations > 0;
    for (int i = 1; i < iterations; i++) distinct += h[i] != h[i - 1];
    PyObject *depths = PyList_New(DBG_DEPTHS), *rounds = PyList_New(DBG_ROUNDS);
    PyObject *half = PyList_New(ncands);
    if (!depths || !rounds || !half) {
        Py_XDECREF(depths); Py_XDECREF(rounds); Py_XDECREF(half);
        return NULL;
    }
    for (int i = 0; i < DBG_DEPTHS; i++) PyList_SET_ITEM(depths, i, PyLong_FromLongLong(dbg->depth_hist[i]));
    for (int i = 0; i < DBG_ROUNDS; i++) PyList_SET_ITEM(rounds, i, PyLong_FromLongLong(dbg->rounds_hist[i]));
    for (int i = 0; i < ncands; i++) PyList_SET_ITEM(half, i, PyLong_FromUnsignedLong(dbg->half_visits[i]));
    PyObject *classes; /* opp_shrink's figures, or None */
    if (!dbg->shrink_on) {
        classes = Py_None;
        Py_INCREF(Py_None);
    } else {
        double r = dbg->sh_replies, v = dbg->sh_visits;
        classes = Py_BuildValue("{s:d,s:d,s:d,s:d}", "replies", r, "classes_per_reply",
                                r > 0 ? dbg->sh_classes / r : 0, "class_visits_share",
                                v > 0 ? dbg->sh_class_visits / v : 0, "mean_gap",
                                v > 0 ? dbg->sh_gap / v : 0);
    }
    if (!classes) {
        Py_DECREF(depths); Py_DECREF(rounds); Py_DECREF(half);
        return NULL;
    }
    double oc, och, oef, mc, mch, mef;
    uint32_t min_visits = DBG_MIN_VISITS;
    branching(nodes, used, seat, 1, min_visits, &oc, &och, &oef);
    branching(nodes, used, seat, 0, min_visits, &mc, &mch, &mef);
    return Py_BuildValue(
        "{s:i,s:N,s:N,s:N,s:L,s:L,s:L,s:{s:d,s:d,s:d},s:{s:d,s:d,s:d},s:i,s:N}", "distinct_deals",
        distinct, "depths", depths, "rounds", rounds, "half_visits", half, "over_in_tree",
        dbg->over_in_tree, "endgame_leaves", dbg->endgame_leaves, "playout_from_later_round",
        dbg->playout_from_round, "opponent_nodes", "count", oc, "children", och, "effective", oef,
        "own_nodes", "count", mc, "children", mch, "effective", mef, "branching_min_visits",
        (int)min_visits, "opponent_classes", classes);
}

/* The deal sampler of ``seat`` from Python arguments; 0 with an exception set.
 * The pool must be exactly the cards the seat cannot place. */
static int read_sampler(const KState *tmpl, int seat, uint64_t pool, PyObject *slots_o,
                        int deck_hidden, PyObject *weights_o, Sampler *sp) {
    uint64_t seen = tmpl->hands[seat] | tmpl->discard | (1ULL << tmpl->trump);
    for (int x = 0; x < tmpl->n; x++) seen |= tmpl->known[x];
    for (int i = 0; i < tmpl->table_len; i++) {
        seen |= 1ULL << tmpl->att[i];
        if (tmpl->dfn[i] >= 0) seen |= 1ULL << tmpl->dfn[i];
    }
    if (pool & seen || pool & ~K_DECK_MASK[tmpl->r.deck] ||
        (pool | seen) != K_DECK_MASK[tmpl->r.deck]) {
        PyErr_SetString(PyExc_ValueError, "search: the pool is not the seat's unseen cards");
        return 0;
    }
    sp->n = tmpl->n;
    sp->seat = seat;
    for (uint64_t p = pool; p; p &= p - 1) sp->pool[sp->npool++] = (int8_t)k_low(p);
    sp->deck_hidden = deck_hidden;
    {
        PyObject *f = PySequence_Fast(slots_o, "slots");
        if (!f) return 0;
        int total = deck_hidden, ok = PySequence_Fast_GET_SIZE(f) == sp->n;
        for (int x = 0; ok && x < sp->n; x++) {
            sp->slots[x] = (int)PyLong_AsLong(PySequence_Fast_GET_ITEM(f, x));
            if (sp->slots[x] < 0) ok = 0;
            total += sp->slots[x];
        }
        Py_DECREF(f);
        if (PyErr_Occurred()) return 0;
        if (!ok || total != sp->npool || sp->slots[seat] != 0 ||
            (tmpl->stock_len ? deck_hidden != tmpl->stock_len - 1 : deck_hidden != 0)) {
            PyErr_SetString(PyExc_ValueError, "search: the hidden places do not fit the pool");
            return 0;
        }
    }
    if (weights_o != Py_None) {
        sp->weighted = 1;
        PyObject *f = PySequence_Fast(weights_o, "weights");
        if (!f) return 0;
        if (PySequence_Fast_GET_SIZE(f) != sp->n) {
            Py_DECREF(f);
            PyErr_SetString(PyExc_ValueError, "search: one row of weights per seat");
            return 0;
        }
        for (int x = 0; x < sp->n; x++) {
            PyObject *row = PySequence_Fast(PySequence_Fast_GET_ITEM(f, x), "weights row");
            if (!row || PySequence_Fast_GET_SIZE(row) != 52) {
                Py_XDECREF(row);
                Py_DECREF(f);
                if (!PyErr_Occurred()) PyErr_SetString(PyExc_ValueError, "search: 52 weights a row");
                return 0;
            }
            for (int k = 0; k < 52; k++) {
                double v = PyFloat_AsDouble(PySequence_Fast_GET_ITEM(row, k));
                sp->w[x][k] = v > 0 ? v : 0;
            }
            Py_DECREF(row);
        }
        Py_DECREF(f);
        if (PyErr_Occurred()) return 0;
    }
    return 1;
}

/* The endgame network from its flat weights (layout in eval.c); NULL with a
 * Python error set if they do not fit. */
static KEval *read_eval(PyObject *o) {
    PyObject *f = PySequence_Fast(o, "eval_weights");
    if (!f) return NULL;
    Py_ssize_t n = PySequence_Fast_GET_SIZE(f);
    double *w = n >= 2 && n <= 100000 ? malloc(sizeof(double) * (size_t)n) : NULL;
    KEval *e = w ? malloc(sizeof(KEval)) : NULL;
    int ok = e != NULL;
    for (Py_ssize_t i = 0; ok && i < n; i++) {
        w[i] = PyFloat_AsDouble(PySequence_Fast_GET_ITEM(f, i));
        if (PyErr_Occurred()) ok = 0;
    }
    int out_of_memory = n >= 2 && n <= 100000 && !e;
    if (ok && !k_eval_load(e, w, (int)n)) ok = 0;
    free(w);
    Py_DECREF(f);
    if (!ok) {
        free(e);
        if (!PyErr_Occurred()) {
            if (out_of_memory) PyErr_NoMemory();
            else PyErr_SetString(PyExc_ValueError, "search: eval_weights do not fit the network");
        }
        return NULL;
    }
    return e;
}

/* search(state, seat, pool, slots, deck_hidden, weights, candidates, iterations, seed,
 *        c, eps, rollout_cap, time_cap, style, debug=False, *, root_c=0,
 *        eval_weights=None, opp_shrink=0, smooth=0)
 * state: a core State agreeing with the seat's view (its hidden cards anywhere);
 * weights: None or a sequence of n sequences of 52 floats. */
PyObject *core_search(PyObject *mod, PyObject *args, PyObject *kwargs) {
    static char *kw[] = {"state", "seat", "pool", "slots", "deck_hidden", "weights", "candidates",
                         "iterations", "seed", "c", "eps", "rollout_cap", "time_cap", "style",
                         "debug", "root_c", "eval_weights", "opp_shrink", "smooth", NULL};
    PyObject *state_obj, *slots_o, *weights_o, *cands_o, *style_o, *eval_o = Py_None;
    int seat, deck_hidden, iterations, rollout_cap, debug = 0;
    unsigned long long pool, seed;
    double c, eps, time_cap, root_c = 0, opp_shrink = 0, smooth = 0;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "OiKOiOOiKddidO|p$dOdd", kw, &state_obj, &seat,
                                     &pool, &slots_o, &deck_hidden, &weights_o, &cands_o,
                                     &iterations, &seed, &c, &eps, &rollout_cap, &time_cap, &style_o,
                                     &debug, &root_c, &eval_o, &opp_shrink, &smooth))
        return NULL;
    if (root_c < 0 || c < 0 || eps < 0 || eps > 1 || !(opp_shrink >= 0 && isfinite(opp_shrink)) ||
        !(smooth >= 0 && isfinite(smooth))) {
        PyErr_SetString(PyExc_ValueError,
                        "search: negative c or root_c, eps not in 0..1, or opp_shrink or smooth "
                        "negative or not finite");
        return NULL;
    }
    const KState *tmpl = k_state_of(state_obj);
    if (!tmpl) return NULL;
    if (tmpl->phase == P_OVER || tmpl->to_move != seat || seat < 0 || seat >= tmpl->n ||
        iterations < 1 || iterations > 50000000 || rollout_cap < 1) {
        PyErr_SetString(PyExc_ValueError, "search: not this seat's turn, or bad budget");
        return NULL;
    }
    KEval *eval = NULL;
    if (eval_o != Py_None && !(eval = read_eval(eval_o)))
        return NULL;
    Sampler *sp = calloc(1, sizeof(Sampler));
    KAction *cands = malloc(sizeof(KAction) * K_MAX_ACTIONS);
    uint32_t *visits = calloc(K_MAX_ACTIONS, sizeof(uint32_t));
    double *values = calloc(K_MAX_ACTIONS, sizeof(double));
    PyObject *result = NULL;
    if (!sp || !cands || !visits || !values) { PyErr_NoMemory(); goto done; }
    if (!read_sampler(tmpl, seat, pool, slots_o, deck_hidden, weights_o, sp)) goto done;
    int ncands = 0;
    {
        PyObject *f = PySequence_Fast(cands_o, "candidates");
        if (!f) goto done;
        Py_ssize_t k = PySequence_Fast_GET_SIZE(f);
        for (Py_ssize_t i = 0; i < k && ncands < K_MAX_ACTIONS; i++) {
            int a_seat, a_kind, a_target;
            unsigned long long a_cards;
            PyObject *item = PySequence_Fast_GET_ITEM(f, i);
            if (!k_require_tuple(item, "a candidate") ||
                !PyArg_ParseTuple(item, "iiKi", &a_seat, &a_kind, &a_cards, &a_target)) {
                Py_DECREF(f);
                goto done;
            }
            KAction a = {(int8_t)a_seat, (int8_t)a_kind, (int8_t)a_target, a_cards};
            if (!k_is_legal(tmpl, &a)) {
                Py_DECREF(f);
                PyErr_SetString(PyExc_ValueError, "search: a candidate is not legal");
                goto done;
            }
            cands[ncands++] = a;
        }
        Py_DECREF(f);
        if (!ncands) {
            PyErr_SetString(PyExc_ValueError, "search: no candidates");
            goto done;
        }
    }
    {
        int a, b, cc, d;
        double rt, att;
        if (!k_require_tuple(style_o, "the style") ||
            !PyArg_ParseTuple(style_o, "iiiidd", &a, &b, &cc, &d, &rt, &att))
            goto done;
        Params pp = {iterations, c, eps, rollout_cap, time_cap, {a != 0, b != 0, cc != 0, d != 0, rt, att},
                     root_c, eval, opp_shrink, smooth};
        Stats st = {0};
        int best;
        Debug *dbg = NULL;
        Node *tree = NULL;
        if (debug) {
            dbg = calloc(1, sizeof(Debug));
            if (dbg) {
                dbg->deal_hash = malloc(sizeof(uint64_t) * (size_t)iterations);
                dbg->half_visits = calloc((size_t)ncands, sizeof(uint32_t));
            }
            if (!dbg || !dbg->deal_hash || !dbg->half_visits) {
                if (dbg) { free(dbg->deal_hash); free(dbg->half_visits); free(dbg); }
                PyErr_NoMemory();
                goto done;
            }
        }
        Py_BEGIN_ALLOW_THREADS
        best = ismcts(tmpl, sp, cands, ncands, &pp, seed, visits, values, &st, debug ? &tree : NULL, dbg);
        Py_END_ALLOW_THREADS
        PyObject *extra = NULL;
        if (dbg) {
            if (best >= 0) extra = debug_dict(dbg, tree, st.nodes, st.iterations, ncands, seat);
            free(tree);
            free(dbg->deal_hash);
            free(dbg->half_visits);
            free(dbg);
            if (best >= 0 && !extra) goto done;
        }
        if (best < 0) { PyErr_NoMemory(); goto done; }
        PyObject *vis = PyList_New(ncands), *val = PyList_New(ncands);
        for (int i = 0; i < ncands; i++) {
            PyList_SET_ITEM(vis, i, PyLong_FromUnsignedLong(visits[i]));
            PyList_SET_ITEM(val, i, PyFloat_FromDouble(values[i]));
        }
        result = Py_BuildValue("(i{s:i,s:i,s:L,s:O,s:N,s:N})", best, "iterations", st.iterations,
                               "nodes", st.nodes, "rollout_steps", st.rollout_steps, "timed_out",
                               st.timed_out ? Py_True : Py_False, "visits", vis, "values", val);
        if (result && eval) { /* how many playouts the network cut short */
            PyObject *v = PyLong_FromLongLong(st.evaluated);
            if (!v || PyDict_SetItemString(PyTuple_GET_ITEM(result, 1), "evaluated", v) < 0)
                Py_CLEAR(result);
            Py_XDECREF(v);
        }
        if (result && extra) {
            if (PyDict_SetItemString(PyTuple_GET_ITEM(result, 1), "debug", extra) < 0) Py_CLEAR(result);
        }
        Py_XDECREF(extra);
    }
done:
    free(eval);
    free(sp);
    free(cands);
    free(visits);
    free(values);
    return result;
}

/* sample_deals(state, seat, pool, slots, deck_hidden, weights, count, seed):
 * ``count`` deals as the search draws them, each (hands, stock) (for tests). */
PyObject *core_sample_deals(PyObject *mod, PyObject *args) {
    PyObject *state_obj, *slots_o, *weights_o;
    int seat, deck_hidden, count;
    unsigned long long pool, seed;
    if (!PyArg_ParseTuple(args, "OiKOiOiK", &state_obj, &seat, &pool, &slots_o, &deck_hidden,
                          &weights_o, &count, &seed))
        return NULL;
    const KState *tmpl = k_state_of(state_obj);
    if (!tmpl) return NULL;
    if (seat < 0 || seat >= tmpl->n || count < 0 || count > 1000000) {
        PyErr_SetString(PyExc_ValueError, "sample_deals: bad seat or count");
        return NULL;
    }
    Sampler *sp = calloc(1, sizeof(Sampler));
    if (!sp) return PyErr_NoMemory();
    if (!read_sampler(tmpl, seat, pool, slots_o, deck_hidden, weights_o, sp)) {
        free(sp);
        return NULL;
    }
    KRng g;
    k_rng_seed(&g, seed);
    PyObject *out = PyList_New(count);
    for (int i = 0; out && i < count; i++) {
        KState s;
        determinize(tmpl, sp, &g, &s);
        PyObject *hands = PyTuple_New(s.n), *stock = PyTuple_New(s.stock_len);
        for (int x = 0; x < s.n; x++) PyTuple_SET_ITEM(hands, x, PyLong_FromUnsignedLongLong(s.hands[x]));
        for (int k = 0; k < s.stock_len; k++) PyTuple_SET_ITEM(stock, k, PyLong_FromLong(s.stock[k]));
        PyList_SET_ITEM(out, i, Py_BuildValue("(NN)", hands, stock));
        k_release(&s);
    }
    free(sp);
    return out;
}

/* solve(state, side, budget) -> 0 / 1 / 2 (halves: side's player the durak, a
 * draw, not the durak) or None when the position is not a two-sided honest one
 * or the budget ran out: the solver the playouts use (for tests against
 * bots/endgame.py). */
PyObject *core_solve(PyObject *mod, PyObject *args) {
    PyObject *state_obj;
    int side;
    long long budget;
    if (!PyArg_ParseTuple(args, "OiL", &state_obj, &side, &budget)) return NULL;
    const KState *s = k_state_of(state_obj);
    if (!s) return NULL;
    if (side < 0 || side >= s->n || budget < 0 || s->phase == P_OVER) {
        PyErr_SetString(PyExc_ValueError, "solve: bad side or budget, or the game is over");
        return NULL;
    }
    KSolver *sv = malloc(sizeof(KSolver));
    if (!sv) return PyErr_NoMemory();
    KStyle style = {1, 1, 1, 1, 0.0, 0.6}; /* the level-4 style: its moves are tried first */
    if (!k_solver_init(sv, 16, s, &style)) {
        free(sv);
        return PyErr_NoMemory();
    }
    int v;
    Py_BEGIN_ALLOW_THREADS
    v = k_solve(sv, s, side, budget);
    Py_END_ALLOW_THREADS
    long long nodes = sv->nodes;
    k_solver_free(sv);
    free(sv);
    if (v < 0) Py_RETURN_NONE;
    return Py_BuildValue("(iL)", v, nodes);
}

/* eval_features(state) -> tuple of K_EVAL_FEATURES floats, or None when the
 * position is not a two-sided one with an empty stock at the start of a round
 * (what the learned endgame evaluation reads; for its training script). */
PyObject *core_eval_features(PyObject *mod, PyObject *arg) {
    const KState *s = k_state_of(arg);
    if (!s) return NULL;
    double f[K_EVAL_FEATURES];
    if (!k_eval_features(s, f)) Py_RETURN_NONE;
    PyObject *out = PyTuple_New(K_EVAL_FEATURES);
    if (!out) return NULL;
    for (int i = 0; i < K_EVAL_FEATURES; i++) PyTuple_SET_ITEM(out, i, PyFloat_FromDouble(f[i]));
    return out;
}
