/* Exact endgame solver on the core's state (see solver.c; mirrors bots/endgame.py). */
#ifndef KOZYR_SOLVER_H
#define KOZYR_SOLVER_H

#include "core.h"

/* Plies below a solve's root after which it gives up (endgame.MAX_DEPTH). */
#define K_SOLVE_DEPTH 300
/* Room for one position's legal actions: at most ~330 at an honest table
 * (a defender's covers with 51 cards); cheating tables are never solved. */
#define K_SOLVE_ACTIONS 512

typedef struct {
    uint64_t key;
    int8_t lo, hi; /* bounds on the value, in halves */
} KEntry;

typedef struct {
    KEntry *tt;
    uint32_t mask;
    KAction *acts; /* K_SOLVE_ACTIONS per depth */
    uint64_t path[K_SOLVE_DEPTH];
    KTables tables;
    KStyle style;
    int side;
    long long nodes, budget;
    long long solves, solved, total_nodes;
} KSolver;

uint64_t k_position_key(const KState *s);
int k_two_sided(const KState *s);
/* A solver with a table of 2^log2_entries positions for states like ``like``
 * (same trump and deck); 0 when out of memory. */
int k_solver_init(KSolver *sv, int log2_entries, const KState *like, const KStyle *style);
void k_solver_free(KSolver *sv);
/* The exact value of ``s`` for ``side`` in halves (0 durak, 1 draw, 2 not),
 * or -1 if it is not a two-sided honest position or ``budget`` nodes ran out. */
int k_solve(KSolver *sv, const KState *s, int side, long long budget);

#endif
