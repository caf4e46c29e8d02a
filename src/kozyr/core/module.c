/* kozyr.core._core: the Python face of the compiled core (CPython C API).
 *
 * A State wraps one KState.  Python code (kozyr/core/__init__.py) converts to
 * and from the reference engine's GameState through plain tuples: the
 * "fields" tuple that State.snapshot() returns and from_fields() accepts.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include "core.h"
#include "search.h"

typedef struct {
    PyObject_HEAD
    KState s;
} StateObject;

static PyTypeObject StateType;

int k_require_tuple(PyObject *obj, const char *what) {
    if (PyTuple_Check(obj)) return 1;
    PyErr_Format(PyExc_TypeError, "core: %s must be a tuple", what);
    return 0;
}

const KState *k_state_of(PyObject *obj) {
    if (!PyObject_TypeCheck(obj, &StateType)) {
        PyErr_SetString(PyExc_TypeError, "core: expected a core State");
        return NULL;
    }
    return &((StateObject *)obj)->s;
}

/* ------------------------------------------------------------ helpers */
static int read_rules(PyObject *t, KRules *r) {
    int v[12];
    if (!k_require_tuple(t, "the rules")) return 0;
    if (!PyArg_ParseTuple(t, "iiiiiiiiiiii", &v[0], &v[1], &v[2], &v[3], &v[4], &v[5], &v[6], &v[7],
                          &v[8], &v[9], &v[10], &v[11]))
        return 0;
    if (v[0] < 2 || v[0] > K_MAX_PLAYERS || (v[1] != 24 && v[1] != 36 && v[1] != 52) ||
        v[0] * K_HAND_SIZE > v[1] || v[4] < 0 || v[4] > 2 ||
        (v[7] != 0 && v[7] != 2 && v[7] != 3)) {
        PyErr_SetString(PyExc_ValueError, "core: bad rules tuple");
        return 0;
    }
    r->players = v[0]; r->deck = v[1]; r->perevodnoy = v[2] != 0; r->lead_multiple = v[3] != 0;
    r->first_round_cap = v[4]; r->neighbours = v[5] != 0; r->show_trump = v[6] != 0;
    r->team_count = v[7]; r->pogony = v[8] != 0; r->repetition_draw = v[9] != 0;
    r->throw_in_after_take = v[10] != 0;
    r->cheating = v[11] != 0;
    return 1;
}

static int read_style(PyObject *t, KStyle *st) {
    int a, b, c, d;
    double rt, att;
    if (!k_require_tuple(t, "a style") || !PyArg_ParseTuple(t, "iiiidd", &a, &b, &c, &d, &rt, &att))
        return 0;
    st->attention = att;
    st->trump_aware = a != 0; st->take_early = b != 0; st->counting = c != 0; st->pairs = d != 0;
    st->random_take = rt;
    return 1;
}

static StateObject *new_state(void) {
    StateObject *o = PyObject_New(StateObject, &StateType);
    if (o) memset(&o->s, 0, sizeof o->s);
    return o;
}

static PyObject *action_tuple(const KAction *a) {
    return Py_BuildValue("(iiKi)", a->seat, a->kind, (unsigned long long)a->cards, a->target);
}

static PyObject *mask_tuple(const uint64_t *m, int n) {
    PyObject *t = PyTuple_New(n);
    if (!t) return NULL;
    for (int i = 0; i < n; i++) PyTuple_SET_ITEM(t, i, PyLong_FromUnsignedLongLong(m[i]));
    return t;
}

static PyObject *small_tuple(const int8_t *v, int n) {
    PyObject *t = PyTuple_New(n);
    if (!t) return NULL;
    for (int i = 0; i < n; i++) PyTuple_SET_ITEM(t, i, PyLong_FromLong(v[i]));
    return t;
}

static PyObject *seat_or_none(int v) {
    if (v < 0) Py_RETURN_NONE;
    return PyLong_FromLong(v);
}

/* plays and cheats as GameState keeps them (rule 13). */
static PyObject *plays_tuple(const KState *s) {
    PyObject *t = PyTuple_New(s->plays_len);
    if (!t) return NULL;
    for (int i = 0; i < s->plays_len; i++) PyTuple_SET_ITEM(t, i, PyLong_FromLong(s->plays[i]));
    return t;
}

static PyObject *cheats_tuple(const KState *s) {
    PyObject *t = PyTuple_New(s->cheats_len);
    if (!t) return NULL;
    for (int i = 0; i < s->cheats_len; i++) {
        const KCheat *c = &s->cheats[i];
        PyTuple_SET_ITEM(t, i, Py_BuildValue("(iiiiiiiiOiiKN)", c->index, c->card, c->cheater,
                                             c->phase, c->to_move, c->attacker, c->defender,
                                             c->limit, c->taking ? Py_True : Py_False, c->passed,
                                             c->shown, (unsigned long long)c->last_play,
                                             small_tuple(c->order, c->order_len)));
    }
    return t;
}

/* ------------------------------------------------------------ snapshot */
static PyObject *State_snapshot(StateObject *self, PyObject *Py_UNUSED(ignored)) {
    KState *s = &self->s;
    int n = s->n;
    PyObject *result;
    if (!s->has_result) {
        result = Py_NewRef(Py_None);
    } else {
        int8_t team[K_MAX_PLAYERS];
        int k = 0;
        for (int x = 0; x < n; x++)
            if (s->result_team >> x & 1) team[k++] = x;
        result = Py_BuildValue("(NNOO)", seat_or_none(s->durak), small_tuple(team, k),
                               s->pogony_result ? Py_True : Py_False,
                               s->repetition ? Py_True : Py_False);
    }
    int count = 0;
    for (KPos *p = s->seen; p; p = p->prev) count++;
    PyObject *seen = PyTuple_New(count);
    int i = count;
    for (KPos *p = s->seen; p; p = p->prev)
        PyTuple_SET_ITEM(seen, --i, Py_BuildValue("(Nii)", mask_tuple(p->hands, n), p->attacker, p->cap));
    return Py_BuildValue(
        "(NNNiNKNNiKiNiiiiOiiNiNNiiKiNiKiNN)", mask_tuple(s->hands, n), mask_tuple(s->known, n),
        small_tuple(s->stock, s->stock_len), s->trump, seat_or_none(s->trump_holder),
        (unsigned long long)s->discard, small_tuple(s->att, s->table_len),
        small_tuple(s->dfn, s->table_len), s->uncovered, (unsigned long long)s->table_ranks,
        s->phase, seat_or_none(s->to_move), s->attacker, s->defender, s->starter, s->limit,
        s->taking ? Py_True : Py_False, s->passed, s->shown, small_tuple(s->order, s->order_len),
        s->active, small_tuple(s->out, s->out_len), result, s->rounds, s->bitos,
        (unsigned long long)s->last_play, s->history_len, seen, s->marked,
        (unsigned long long)s->cleared, s->pending, plays_tuple(s), cheats_tuple(s));
}

static int read_masks(PyObject *seq, uint64_t *out, int n, const char *what) {
    PyObject *f = PySequence_Fast(seq, what);
    if (!f) return 0;
    if (PySequence_Fast_GET_SIZE(f) != n) {
        PyErr_Format(PyExc_ValueError, "core: %s must have %d entries", what, n);
        Py_DECREF(f);
        return 0;
    }
    for (int i = 0; i < n; i++) {
        unsigned long long v = PyLong_AsUnsignedLongLong(PySequence_Fast_GET_ITEM(f, i));
        if (PyErr_Occurred() || v >> 52) {
            if (!PyErr_Occurred()) PyErr_Format(PyExc_ValueError, "core: bad card set in %s", what);
            Py_DECREF(f);
            return 0;
        }
        out[i] = v;
    }
    Py_DECREF(f);
    return 1;
}

static int read_small(PyObject *seq, int8_t *out, int max, int lo, int hi, int8_t *len,
                      const char *what) {
    PyObject *f = PySequence_Fast(seq, what);
    if (!f) return 0;
    Py_ssize_t k = PySequence_Fast_GET_SIZE(f);
    if (k > max) {
        PyErr_Format(PyExc_ValueError, "core: too many entries in %s", what);
        Py_DECREF(f);
        return 0;
    }
    for (Py_ssize_t i = 0; i < k; i++) {
        long v = PyLong_AsLong(PySequence_Fast_GET_ITEM(f, i));
        if (PyErr_Occurred() || v < lo || v > hi) {
            if (!PyErr_Occurred()) PyErr_Format(PyExc_ValueError, "core: bad value in %s", what);
            Py_DECREF(f);
            return 0;
        }
        out[i] = (int8_t)v;
    }
    *len = (int8_t)k;
    Py_DECREF(f);
    return 1;
}

static int seat_value(PyObject *o, int n, int8_t *out) {
    if (o == Py_None) { *out = -1; return 1; }
    long v = PyLong_AsLong(o);
    if (PyErr_Occurred()) return 0;
    if (v < 0 || v >= n) { PyErr_SetString(PyExc_ValueError, "core: bad seat"); return 0; }
    *out = (int8_t)v;
    return 1;
}

/* Fields 28-32 (rule 13): marked, cleared, pending, plays, cheats.  The plays
 * must be exactly the cards on the table (so the table's bounds hold them),
 * and each cheat record must point into them. */
static int read_cheating(PyObject *f, KState *s) {
    int n = s->n;
    long marked = PyLong_AsLong(PyTuple_GET_ITEM(f, 28));
    if (PyErr_Occurred()) return 0;
    s->cleared = PyLong_AsUnsignedLongLong(PyTuple_GET_ITEM(f, 29));
    if (PyErr_Occurred()) return 0;
    long pending = PyLong_AsLong(PyTuple_GET_ITEM(f, 30));
    if (PyErr_Occurred()) return 0;
    if (marked < 0 || marked > 63 || pending < 0 || pending > 63 || s->cleared >> 52) {
        PyErr_SetString(PyExc_ValueError, "core: bad cheating fields");
        return 0;
    }
    s->marked = (uint8_t)marked;
    s->pending = (uint8_t)pending;
    PyObject *plays = PySequence_Fast(PyTuple_GET_ITEM(f, 31), "plays");
    if (!plays) return 0;
    Py_ssize_t np = PySequence_Fast_GET_SIZE(plays);
    uint64_t table = 0, covers = 0, seen = 0;
    for (int i = 0; i < s->table_len; i++) {
        table |= 1ULL << s->att[i];
        if (s->dfn[i] >= 0) { table |= 1ULL << s->dfn[i]; covers |= 1ULL << s->dfn[i]; }
    }
    int bad = np > K_MAX_TABLE;
    for (Py_ssize_t i = 0; !bad && i < np; i++) {
        long p = PyLong_AsLong(PySequence_Fast_GET_ITEM(plays, i));
        if (PyErr_Occurred()) { Py_DECREF(plays); return 0; }
        int c = (int)(p & 63), owner = (int)(p >> K_PLAY_SEAT_SHIFT & 7);
        if (p < 0 || p >= 2 * K_PLAY_COVER || c > 51 || owner >= n || (seen >> c & 1) ||
            !(table >> c & 1) || ((covers >> c & 1) != ((p & K_PLAY_COVER) != 0))) bad = 1;
        seen |= 1ULL << (c & 63);
        s->plays[i] = (int16_t)p;
    }
    Py_DECREF(plays);
    if (bad || (np && seen != table) || (!np && s->r.cheating && table)) {
        PyErr_SetString(PyExc_ValueError, "core: plays must list the cards on the table");
        return 0;
    }
    s->plays_len = (int8_t)np;
    PyObject *cheats = PySequence_Fast(PyTuple_GET_ITEM(f, 32), "cheats");
    if (!cheats) return 0;
    Py_ssize_t nc = PySequence_Fast_GET_SIZE(cheats);
    if (nc > np) bad = 1;
    int last = 0;
    for (Py_ssize_t i = 0; !bad && i < nc; i++) {
        PyObject *rec = PySequence_Fast_GET_ITEM(cheats, i), *taking, *order;
        int v[8], passed, shown;
        unsigned long long last_play;
        KCheat *c = &s->cheats[i];
        if (!k_require_tuple(rec, "a cheat record") ||
            !PyArg_ParseTuple(rec, "iiiiiiiiOiiKO", &v[0], &v[1], &v[2], &v[3], &v[4], &v[5], &v[6],
                              &v[7], &taking, &passed, &shown, &last_play, &order)) {
            Py_DECREF(cheats);
            return 0;
        }
        if (v[0] < last || v[0] >= np || v[1] < 0 || v[1] > 51 || !(seen >> v[1] & 1) ||
            (s->cheat_cards >> v[1] & 1) || v[2] < 0 || v[2] >= n || v[3] < 0 || v[3] > 2 ||
            v[4] < 0 || v[4] >= n || v[5] < 0 || v[5] >= n || v[6] < 0 || v[6] >= n || v[7] < 0 ||
            v[7] > K_ATTACK_CAP || passed < 0 || passed > 63 || shown < 0 || shown > 63 ||
            last_play >> 52) {
            bad = 1;
            break;
        }
        last = v[0];
        c->index = v[0]; c->card = v[1]; c->cheater = v[2]; c->phase = v[3]; c->to_move = v[4];
        c->attacker = v[5]; c->defender = v[6]; c->limit = v[7];
        c->taking = PyObject_IsTrue(taking) == 1;
        c->passed = passed; c->shown = shown; c->last_play = last_play;
        if (!read_small(order, c->order, K_MAX_PLAYERS, 0, n - 1, &c->order_len, "a cheat's order")) {
            Py_DECREF(cheats);
            return 0;
        }
        s->cheat_cards |= 1ULL << c->card;
        s->cheats_len = (int8_t)(i + 1);
    }
    Py_DECREF(cheats);
    if (bad) {
        PyErr_SetString(PyExc_ValueError, "core: bad cheat record");
        return 0;
    }
    return 1;
}

/* from_fields(rules, fields): a State from a snapshot-shaped tuple. */
static PyObject *core_from_fields(PyObject *mod, PyObject *args) {
    PyObject *rules_t, *f;
    if (!PyArg_ParseTuple(args, "OO!", &rules_t, &PyTuple_Type, &f)) return NULL;
    KRules r;
    if (!read_rules(rules_t, &r)) return NULL;
    if (PyTuple_GET_SIZE(f) != 33) {
        PyErr_SetString(PyExc_ValueError, "core: fields must be a 33-tuple");
        return NULL;
    }
    StateObject *o = new_state();
    if (!o) return NULL;
    KState *s = &o->s;
    s->r = r;
    k_setup_team(s);
    int n = s->n;
    int8_t dummy, tl1, tl2;
#define ITEM(i) PyTuple_GET_ITEM(f, i)
#define INT(i, dst, lo, hi) do { long v_ = PyLong_AsLong(ITEM(i)); \
        if (PyErr_Occurred()) goto fail; \
        if (v_ < (lo) || v_ > (hi)) { PyErr_Format(PyExc_ValueError, "core: field %d out of range", i); goto fail; } \
        dst = v_; } while (0)
    if (!read_masks(ITEM(0), s->hands, n, "hands")) goto fail;
    if (!read_masks(ITEM(1), s->known, n, "known")) goto fail;
    if (!read_small(ITEM(2), s->stock, 52, 0, 51, &s->stock_len, "stock")) goto fail;
    INT(3, s->trump, 0, 51);
    s->trump_suit = k_suit(s->trump);
    if (!seat_value(ITEM(4), n, &s->trump_holder)) goto fail;
    s->discard = PyLong_AsUnsignedLongLong(ITEM(5));
    if (PyErr_Occurred()) goto fail;
    /* A round never has more than six attack cards (the cap); with at most six
     * more from one play the table fits K_MAX_TABLE whatever comes next. */
    if (!read_small(ITEM(6), s->att, K_ATTACK_CAP, 0, 51, &tl1, "att")) goto fail;
    if (!read_small(ITEM(7), s->dfn, K_ATTACK_CAP, -1, 51, &tl2, "dfn")) goto fail;
    if (tl1 != tl2) { PyErr_SetString(PyExc_ValueError, "core: att and dfn differ in length"); goto fail; }
    s->table_len = tl1;
    INT(8, s->uncovered, 0, K_ATTACK_CAP);
    s->table_ranks = PyLong_AsUnsignedLongLong(ITEM(9));
    if (PyErr_Occurred()) goto fail;
    INT(10, s->phase, 0, 4);
    if (!seat_value(ITEM(11), n, &s->to_move)) goto fail;
    INT(12, s->attacker, 0, n - 1);
    INT(13, s->defender, 0, n - 1);
    INT(14, s->starter, 0, n - 1);
    INT(15, s->limit, 0, K_ATTACK_CAP);
    s->taking = PyObject_IsTrue(ITEM(16)) == 1;
    INT(17, s->passed, 0, 63);
    INT(18, s->shown, 0, 63);
    if (!read_small(ITEM(19), s->order, K_MAX_PLAYERS, 0, n - 1, &s->order_len, "order")) goto fail;
    INT(20, s->active, 0, 63);
    if (!read_small(ITEM(21), s->out, K_MAX_PLAYERS, 0, n - 1, &s->out_len, "out")) goto fail;
    PyObject *res = ITEM(22);
    s->durak = -1;
    if (res != Py_None) {
        PyObject *durak, *team, *pog, *rep;
        if (!k_require_tuple(res, "the result (or None)")) goto fail;
        if (!PyArg_ParseTuple(res, "OOOO", &durak, &team, &pog, &rep)) goto fail;
        s->has_result = 1;
        if (!seat_value(durak, n, &s->durak)) goto fail;
        int8_t seats[K_MAX_PLAYERS], k = 0;
        if (!read_small(team, seats, K_MAX_PLAYERS, 0, n - 1, &k, "team")) goto fail;
        for (int i = 0; i < k; i++) s->result_team |= 1 << seats[i];
        s->pogony_result = PyObject_IsTrue(pog) == 1;
        s->repetition = PyObject_IsTrue(rep) == 1;
    }
    INT(23, s->rounds, 0, 1 << 30);
    INT(24, s->bitos, 0, 1 << 30);
    s->last_play = PyLong_AsUnsignedLongLong(ITEM(25));
    if (PyErr_Occurred()) goto fail;
    INT(26, s->history_len, 0, 1 << 30);
    {
        PyObject *seen = PySequence_Fast(ITEM(27), "seen");
        if (!seen) goto fail;
        for (Py_ssize_t i = 0; i < PySequence_Fast_GET_SIZE(seen); i++) {
            PyObject *hands, *pos = PySequence_Fast_GET_ITEM(seen, i);
            int att, cap;
            if (!k_require_tuple(pos, "a position") ||
                !PyArg_ParseTuple(pos, "Oii", &hands, &att, &cap)) {
                Py_DECREF(seen);
                goto fail;
            }
            KPos *p = calloc(1, sizeof(KPos));
            p->refs = 1;
            p->attacker = att;
            p->cap = cap;
            p->prev = s->seen;
            s->seen = p;
            if (!read_masks(hands, p->hands, n, "position")) { Py_DECREF(seen); goto fail; }
        }
        Py_DECREF(seen);
    }
    (void)dummy;
    if (!read_cheating(f, s)) goto fail;
    for (int i = 0; i < s->table_len; i++) {
        if (s->dfn[i] >= 0 && s->dfn[i] == s->att[i]) {
            PyErr_SetString(PyExc_ValueError, "core: a card covers itself");
            goto fail;
        }
    }
    if (s->phase != P_OVER && s->to_move < 0) {
        PyErr_SetString(PyExc_ValueError, "core: a game in progress needs a seat to move");
        goto fail;
    }
    return (PyObject *)o;
fail:
    Py_DECREF(o);
    return NULL;
#undef ITEM
#undef INT
}

static PyObject *core_new_seeded(PyObject *mod, PyObject *args) {
    PyObject *rules_t;
    unsigned long long seed;
    if (!PyArg_ParseTuple(args, "OK", &rules_t, &seed)) return NULL;
    KRules r;
    if (!read_rules(rules_t, &r)) return NULL;
    StateObject *o = new_state();
    if (!o) return NULL;
    k_new_seeded(&o->s, &r, seed);
    return (PyObject *)o;
}

/* ------------------------------------------------------------ methods */
static void State_dealloc(StateObject *self) {
    k_release(&self->s);
    PyObject_Free(self);
}

static PyObject *State_copy(StateObject *self, PyObject *Py_UNUSED(ignored)) {
    StateObject *o = new_state();
    if (!o) return NULL;
    k_copy(&o->s, &self->s);
    return (PyObject *)o;
}

static PyObject *action_list(const KAction *acts, int k) {
    PyObject *list = PyList_New(k);
    if (!list) return NULL;
    for (int i = 0; i < k; i++) {
        PyObject *t = action_tuple(&acts[i]);
        if (!t) { Py_DECREF(list); return NULL; }
        PyList_SET_ITEM(list, i, t);
    }
    return list;
}

static PyObject *State_legal(StateObject *self, PyObject *Py_UNUSED(ignored)) {
    KAction acts[K_MAX_ACTIONS];
    return action_list(acts, k_legal(&self->s, acts));
}

static int read_action(PyObject *args, KAction *a) {
    int seat, kind, target;
    unsigned long long cards;
    if (!PyArg_ParseTuple(args, "(iiKi)", &seat, &kind, &cards, &target)) return 0;
    a->seat = seat; a->kind = kind; a->cards = cards; a->target = target;
    if (seat < -128 || seat > 127 || kind < 0 || kind > 7 || target < -1 || target > 51 || cards >> 52) {
        a->kind = -1; /* never legal */
    }
    return 1;
}

static PyObject *State_legal_for(StateObject *self, PyObject *args) {
    int seat;
    if (!PyArg_ParseTuple(args, "i", &seat)) return NULL;
    KAction acts[K_MAX_ACTIONS];
    return action_list(acts, k_legal_for(&self->s, seat, acts));
}

static PyObject *State_is_legal(StateObject *self, PyObject *args) {
    KAction a;
    if (!read_action(args, &a)) return NULL;
    if (a.kind < 0) Py_RETURN_FALSE;
    return PyBool_FromLong(k_is_legal(&self->s, &a));
}

static PyObject *State_apply(StateObject *self, PyObject *args) {
    KAction a;
    if (!read_action(args, &a)) return NULL;
    if (a.kind < 0 || !k_is_legal(&self->s, &a)) {
        PyErr_SetString(PyExc_ValueError, "core: illegal action");
        return NULL;
    }
    k_do(&self->s, &a);
    Py_RETURN_NONE;
}

static PyObject *State_random_playout(StateObject *self, PyObject *args) {
    unsigned long long seed;
    int cap = 1 << 30;
    if (!PyArg_ParseTuple(args, "K|i", &seed, &cap)) return NULL;
    KRng g;
    k_rng_seed(&g, seed);
    return PyLong_FromLong(k_random_playout(&self->s, &g, cap));
}

static PyObject *State_policy_action(StateObject *self, PyObject *args) {
    PyObject *style_t;
    double u;
    if (!PyArg_ParseTuple(args, "Od", &style_t, &u)) return NULL;
    KStyle st;
    if (!read_style(style_t, &st)) return NULL;
    if (self->s.phase == P_OVER) {
        PyErr_SetString(PyExc_ValueError, "core: the game is over");
        return NULL;
    }
    KTables t;
    k_tables(&t, self->s.trump_suit, self->s.r.deck, st.trump_aware);
    KAction a;
    k_policy_action(&self->s, &t, &st, u, &a);
    return action_tuple(&a);
}

static PyObject *State_policy_playout(StateObject *self, PyObject *args) {
    unsigned long long seed;
    PyObject *style_t;
    double eps;
    int cap;
    if (!PyArg_ParseTuple(args, "KOdi", &seed, &style_t, &eps, &cap)) return NULL;
    KStyle st;
    if (!read_style(style_t, &st)) return NULL;
    KTables t;
    k_tables(&t, self->s.trump_suit, self->s.r.deck, st.trump_aware);
    KRng g;
    k_rng_seed(&g, seed);
    return PyLong_FromLong(k_policy_playout(&self->s, &g, &t, &st, eps, cap));
}

static PyObject *State_reward(StateObject *self, PyObject *args) {
    int seat;
    if (!PyArg_ParseTuple(args, "i", &seat)) return NULL;
    if (seat < 0 || seat >= self->s.n) {
        PyErr_SetString(PyExc_ValueError, "core: no such seat");
        return NULL;
    }
    return PyFloat_FromDouble(k_reward(&self->s, seat));
}

/* engine.perft on the core: legal action sequences of length depth (>= 1). */
static long long perft(const KState *s, int depth) {
    KAction acts[K_MAX_ACTIONS];
    int k = k_legal(s, acts);
    if (depth == 1) return k;
    long long total = 0;
    for (int i = 0; i < k; i++) {
        KState child;
        k_copy(&child, s);
        k_do(&child, &acts[i]);
        total += perft(&child, depth - 1);
        k_release(&child);
    }
    return total;
}

static PyObject *State_perft(StateObject *self, PyObject *args) {
    int depth;
    if (!PyArg_ParseTuple(args, "i", &depth)) return NULL;
    if (depth < 1 || depth > 12) {
        PyErr_SetString(PyExc_ValueError, "core: perft depth must be 1..12");
        return NULL;
    }
    long long n;
    Py_BEGIN_ALLOW_THREADS
    n = perft(&self->s, depth);
    Py_END_ALLOW_THREADS
    return PyLong_FromLongLong(n);
}

static PyObject *State_get_phase(StateObject *self, void *c) { return PyLong_FromLong(self->s.phase); }
static PyObject *State_get_to_move(StateObject *self, void *c) { return seat_or_none(self->s.to_move); }
static PyObject *State_get_over(StateObject *self, void *c) { return PyBool_FromLong(self->s.phase == P_OVER); }
static PyObject *State_get_history_len(StateObject *self, void *c) { return PyLong_FromLong(self->s.history_len); }

static PyMethodDef State_methods[] = {
    {"snapshot", (PyCFunction)State_snapshot, METH_NOARGS, "Every field, as a tuple (see kozyr.core)."},
    {"copy", (PyCFunction)State_copy, METH_NOARGS, "An independent copy."},
    {"legal", (PyCFunction)State_legal, METH_NOARGS, "The legal actions, reference order, as tuples."},
    {"legal_for", (PyCFunction)State_legal_for, METH_VARARGS, "legal_for(seat): GameState.legal_actions_for"},
    {"is_legal", (PyCFunction)State_is_legal, METH_VARARGS, "is_legal((seat, kind, cards, target))"},
    {"apply", (PyCFunction)State_apply, METH_VARARGS, "apply((seat, kind, cards, target)); ValueError if illegal."},
    {"random_playout", (PyCFunction)State_random_playout, METH_VARARGS, "random_playout(seed[, cap]) -> actions played"},
    {"policy_action", (PyCFunction)State_policy_action, METH_VARARGS, "policy_action(style, u) -> action"},
    {"policy_playout", (PyCFunction)State_policy_playout, METH_VARARGS, "policy_playout(seed, style, eps, cap) -> actions"},
    {"perft", (PyCFunction)State_perft, METH_VARARGS, "perft(depth) -> legal action sequences of that length"},
    {"reward", (PyCFunction)State_reward, METH_VARARGS, "reward(seat) -> 1, 0, 0.5 or an estimate"},
    {NULL, NULL, 0, NULL},
};

static PyGetSetDef State_getset[] = {
    {"phase", (getter)State_get_phase, NULL, "0 lead, 1 defend, 2 throw, 3 over, 4 last call", NULL},
    {"to_move", (getter)State_get_to_move, NULL, "the seat to move or None", NULL},
    {"over", (getter)State_get_over, NULL, "True once the game has ended", NULL},
    {"history_len", (getter)State_get_history_len, NULL, "actions played", NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

static PyTypeObject StateType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "kozyr.core._core.State",
    .tp_basicsize = sizeof(StateObject),
    .tp_dealloc = (destructor)State_dealloc,
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "A game state of the compiled core.",
    .tp_methods = State_methods,
    .tp_getset = State_getset,
};

/* bench_random(rules, first_seed, games) -> total actions: fresh seeded deals
 * played out with uniformly random actions, all in C. */
static PyObject *core_bench_random(PyObject *mod, PyObject *args) {
    PyObject *rules_t;
    unsigned long long seed;
    long games;
    if (!PyArg_ParseTuple(args, "OKl", &rules_t, &seed, &games)) return NULL;
    KRules r;
    if (!read_rules(rules_t, &r)) return NULL;
    long long actions = 0;
    KRng g;
    k_rng_seed(&g, seed ^ 0x5DEECE66DULL);
    Py_BEGIN_ALLOW_THREADS
    KState s;
    for (long i = 0; i < games; i++) {
        k_new_seeded(&s, &r, seed + i);
        actions += k_random_playout(&s, &g, 1 << 30);
        k_release(&s);
    }
    Py_END_ALLOW_THREADS
    return PyLong_FromLongLong(actions);
}

static PyMethodDef core_methods[] = {
    {"from_fields", core_from_fields, METH_VARARGS, "from_fields(rules, fields) -> State"},
    {"new_seeded", core_new_seeded, METH_VARARGS, "new_seeded(rules, seed) -> State (Deal.from_seed)"},
    {"bench_random", core_bench_random, METH_VARARGS, "bench_random(rules, seed, games) -> actions"},
    {"search", (PyCFunction)(void (*)(void))core_search, METH_VARARGS | METH_KEYWORDS, SEARCH_DOC},
    {"sample_deals", core_sample_deals, METH_VARARGS, "sample_deals(state, seat, pool, slots, deck_hidden, weights, count, seed)"},
    {"solve", core_solve, METH_VARARGS, "solve(state, side, budget) -> (value in halves, nodes) or None"},
    {"eval_features", core_eval_features, METH_O, "eval_features(state) -> the learned endgame evaluation's inputs, or None"},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef core_module = {
    PyModuleDef_HEAD_INIT, "_core", "The compiled core of Kozyr (see kozyr/core/__init__.py).", -1,
    core_methods,
};

PyMODINIT_FUNC PyInit__core(void) {
    k_init_tables();
    if (PyType_Ready(&StateType) < 0) return NULL;
    PyObject *m = PyModule_Create(&core_module);
    if (!m) return NULL;
    Py_INCREF(&StateType);
    if (PyModule_AddObject(m, "State", (PyObject *)&StateType) < 0) {
        Py_DECREF(&StateType);
        Py_DECREF(m);
        return NULL;
    }
    PyModule_AddIntConstant(m, "MAX_ACTIONS", K_MAX_ACTIONS);
    return m;
}
