/* The compiled core: the rules of src/kozyr/engine/state.py on plain C structs.
 *
 * state.py is the reference; every function here mirrors one of its methods
 * (named in the comment above it) so that a reader can put the two side by
 * side.  tests/core/ prove they agree on legal sets and successor states.
 * Nothing here allocates except the repetition history (a shared, reference-
 * counted list of round-start positions, like the tuple the reference shares).
 */
#ifndef KOZYR_CORE_H
#define KOZYR_CORE_H

#include <stdint.h>
#include <string.h>

#define K_MAX_PLAYERS 6
#define K_MAX_TABLE 12
/* A lead alongside (rule 13) at a cheating table is the widest list: with a
 * 51-card hand at most ~9,000 actions. */
#define K_MAX_ACTIONS 10240
#define K_HAND_SIZE 6
#define K_ATTACK_CAP 6
#define K_FIRST_ROUND_CAP 5

enum { P_LEAD = 0, P_DEFEND = 1, P_THROW = 2, P_OVER = 3, P_LAST_CALL = 4 };
enum { A_ATTACK = 0, A_DEFEND = 1, A_THROW = 2, A_TAKE = 3, A_PASS = 4, A_TRANSFER = 5, A_SHOW = 6, A_ACCUSE = 7 };
enum { FRC_OFF = 0, FRC_FIRST_ROUND = 1, FRC_UNTIL_BITO = 2 };

typedef struct {
    int8_t players;
    int8_t deck;            /* 24, 36 or 52 */
    int8_t perevodnoy;
    int8_t lead_multiple;
    int8_t first_round_cap; /* FRC_* */
    int8_t neighbours;      /* throw_in == "neighbours" */
    int8_t show_trump;
    int8_t team_count;      /* 0, 2 or 3 */
    int8_t pogony;
    int8_t repetition_draw;
    int8_t throw_in_after_take;
    int8_t cheating;
} KRules;

typedef struct {
    int8_t seat;
    int8_t kind;
    int8_t target; /* -1 unless defend */
    uint64_t cards;
} KAction;

/* A play on the table (GameState.plays): card | seat << 6 | PLAY_COVER. */
#define K_PLAY_SEAT_SHIFT 6
#define K_PLAY_COVER (1 << 9)

/* One cheat on the table (GameState.cheats): where its action began in plays,
 * the card, the cheater and the round's fields just before it (rule 13). */
typedef struct {
    int8_t index, card, cheater, phase, to_move, attacker, defender, limit, taking;
    uint8_t passed, shown;
    int8_t order[K_MAX_PLAYERS], order_len;
    uint64_t last_play;
} KCheat;

/* One round-start position of the repetition rule: hands, attacker, cap.  The
 * history is an immutable linked list shared between copies (reference counted). */
typedef struct KPos {
    int refs;
    int8_t attacker;
    int8_t cap;
    uint64_t hands[K_MAX_PLAYERS];
    struct KPos *prev;
} KPos;

typedef struct {
    KRules r;
    int8_t n;
    int8_t team[K_MAX_PLAYERS];
    uint64_t hands[K_MAX_PLAYERS];
    uint64_t known[K_MAX_PLAYERS];
    int8_t stock[52]; /* stock[stock_len - 1] is the top, stock[0] the face-up trump */
    int8_t stock_len;
    int8_t trump, trump_suit, trump_holder; /* trump_holder -1: none */
    uint64_t discard;
    int8_t att[K_MAX_TABLE], dfn[K_MAX_TABLE];
    int8_t table_len;
    int8_t uncovered;
    uint64_t table_ranks;
    int8_t phase;
    int8_t to_move; /* -1 when over */
    int8_t attacker, defender, starter, limit, taking;
    uint8_t passed, shown, active;
    int8_t order[K_MAX_PLAYERS], order_len;
    int8_t out[K_MAX_PLAYERS], out_len;
    /* result: has_result; durak -1 = draw; team mask; flags */
    int8_t has_result, durak, pogony_result, repetition;
    uint8_t result_team;
    int32_t rounds, bitos, history_len;
    uint64_t last_play;
    KPos *seen; /* newest first; NULL: empty */
    /* cheating tables (rule 13) */
    uint8_t marked, pending;
    uint64_t cheat_cards, cleared;
    int16_t plays[K_MAX_TABLE];
    int8_t plays_len, cheats_len;
    KCheat cheats[K_MAX_TABLE];
} KState;

extern uint64_t K_RANK_MASK[13];
extern uint64_t K_SUIT_MASK[4];
extern uint64_t K_BEATERS[4][52];
extern uint64_t K_DECK_MASK[53];

void k_init_tables(void);

static inline int k_pop(uint64_t m) { return __builtin_popcountll(m); }
static inline int k_low(uint64_t m) { return __builtin_ctzll(m); }
static inline int k_high(uint64_t m) { return 63 - __builtin_clzll(m); }
static inline int k_rank(int c) { return c % 13; }
static inline int k_suit(int c) { return c / 13; }
static inline int k_lowest_rank(int deck) { return deck == 24 ? 7 : deck == 36 ? 4 : 0; }

/* State life cycle (copies share the repetition history). */
void k_copy(KState *dst, const KState *src);
void k_release(KState *s);
void k_pos_decref(KPos *p);

/* GameState.new for a seeded deal (Deal.from_seed, no named first attacker). */
void k_new_seeded(KState *s, const KRules *r, uint64_t seed);
/* After the fields are filled in by hand (from a Python state or a view). */
void k_setup_team(KState *s);
void k_refresh_order(KState *s);

int k_legal(const KState *s, KAction *out);
/* GameState.legal_actions_for: the turn's actions, or accusations out of turn. */
int k_legal_for(const KState *s, int seat, KAction *out);
int k_is_legal(const KState *s, const KAction *a);
void k_do(KState *s, const KAction *a);
int k_cap(const KState *s);

/* Random numbers: xoshiro256** seeded by SplitMix64. */
typedef struct { uint64_t s[4]; } KRng;
void k_rng_seed(KRng *g, uint64_t seed);
static inline uint64_t k_rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }
static inline uint64_t k_next(KRng *g) {
    uint64_t *s = g->s;
    uint64_t result = k_rotl(s[1] * 5, 7) * 9;
    uint64_t t = s[1] << 17;
    s[2] ^= s[0]; s[3] ^= s[1]; s[1] ^= s[2]; s[0] ^= s[3];
    s[2] ^= t; s[3] = k_rotl(s[3], 45);
    return result;
}
static inline double k_uniform(KRng *g) { return (double)(k_next(g) >> 11) * (1.0 / 9007199254740992.0); }
static inline uint32_t k_below(KRng *g, uint32_t n) { return (uint32_t)(((k_next(g) >> 32) * (uint64_t)n) >> 32); }

/* Play uniformly random legal actions to the end; returns the actions played. */
int k_random_playout(KState *s, KRng *g, int cap);

/* ---- the level-4 rollout policy (src/kozyr/bots/heuristics.py, rollout.py) ---- */
typedef struct {
    int8_t trump_aware, take_early, counting, pairs;
    double random_take;
    double attention; /* rule 13: the chance of calling out a cheat in the last call */
} KStyle;

typedef struct {
    int cost[52];
    uint64_t trumps;
    int deck, ranks, high_trump, cheap, dump, big_deck, low, aware;
} KTables;

void k_tables(KTables *t, int trump_suit, int deck, int trump_aware);
void k_policy_action(const KState *s, const KTables *t, const KStyle *st, double u, KAction *out);
void k_policy_step(KState *s, KRng *g, const KTables *t, const KStyle *st, double eps);
int k_policy_playout(KState *s, KRng *g, const KTables *t, const KStyle *st, double eps, int cap);
int k_policy_playout_to(KState *s, KRng *g, const KTables *t, const KStyle *st, double eps, int cap,
                        int max_cards, int lead_only);
/* 1 / 0 / 0.5 for seat (and its team), hand-size estimate if unfinished. */
double k_reward(const KState *s, int seat);

#endif
