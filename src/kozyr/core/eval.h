/* A learned evaluation of perfect-information endgames (see eval.c). */
#ifndef KOZYR_EVAL_H
#define KOZYR_EVAL_H

#include "core.h"

#define K_EVAL_FEATURES 24
#define K_EVAL_HIDDEN 32

typedef struct {
    int hidden;
    double w1[K_EVAL_HIDDEN][K_EVAL_FEATURES];
    double b1[K_EVAL_HIDDEN];
    double w2[K_EVAL_HIDDEN];
    double b2;
} KEval;

/* The features of a two-sided position with an empty stock at the start of a
 * round, from the attacker's side; 0 (f untouched) for any other position. */
int k_eval_features(const KState *s, double *f);
int k_two_sided_eval(const KState *s);
/* Load a network of K_EVAL_FEATURES inputs from its flat weights (layout in
 * eval.c); 0 if they do not fit. */
int k_eval_load(KEval *e, const double *w, int n);
/* The network's output for features f: the attacker's chance of not being the durak. */
double k_eval_net(const KEval *e, const double *f);
/* k_eval_features then k_eval_net; -1 for a position without features. */
double k_eval(const KEval *e, const KState *s);

#endif
