/*
 * confirm.pml: one write confirm's life across two Hub replicas on the Redis
 * broker (redisbroker), with the gate's steps around it (runtime/ocp dispatch.go and decide.go).
 * Checked by model_test.go (spin -a; gcc; ./pan); see docs/security-model.md,
 * "The confirm protocol, checked".
 *
 * Replica A holds the call: serverGate.run -> call.confirm ->
 * Broker.Request (scriptOpen, then Broker.wait looping on scriptFinish) ->
 * re-authorization -> the server call -> the result. Replica B holds the
 * deciding peers: Gate.Resolve -> Broker.Lookup -> digest -> mayDecide ->
 * Broker.Resolve (scriptDecide). Redis holds one key (its state field) and
 * its TTL (the lease). The environment may, each at most once and at any
 * moment: cancel the caller's context, change the catalogue (withdrawing
 * the tool), revoke the requester's rights, kill replica A, take Redis down
 * and bring it back empty (a restart without persistence), cut A's link to
 * Redis and restore it; pub/sub wake-ups may be lost or delivered twice.
 *
 * Time is a discrete clock now = 0 .. TMAX+1, shared by Redis and the
 * replicas (clock skew is not modelled). The confirm opens at 0 and
 * expires at EXP; the lease is LEASE (Lease in the code), which also bounds
 * how long the key outlives its expiry: never past EXP + LEASE = TMAX (the
 * scripts' ttl_ms takes the lease for both). A heartbeat may run
 * once per clock unit (Lease/3 in the code: several per lease).
 *
 * Every state change carries a name, printed as "EV <name> ..." and used
 * as a comment ("model: <name>") at the statement of the code that makes
 * it; runtime/brokertest/replay.go replays these traces against brokers.
 *
 * One replica's scriptOpen and scriptFinish calls for several confirms may
 * share one pipeline (redisbroker's combiner): each script is still one
 * atomic step of its own, so this one-confirm model is the same.
 *
 * Compile-time variants: -DNO_STORE_FAULTS leaves out the failures of Redis,
 * of replica A and of its link; -DWALK_BROKER, for random walks only, makes
 * every decision one that reaches the broker. -DSEEDED_BUG makes scriptDecide accept a decision
 * after expiry (the check must then fail). -DOLD_CLOSE models Broker.wait
 * before the fix of "close failure" (it returned the close's outcome when
 * the close could not reach Redis, leaving the key pending).
 */

#define EXP    1
#define LEASE  2
#define TMAX   (EXP + LEASE)
#define TLIM   (TMAX + 1)
#ifndef DECISIONS
#define DECISIONS 2
#endif
#ifndef MAXFAULTS
#define MAXFAULTS 2
#endif

mtype = { none, pending, approved, denied, expired, cancelled };

/* the channel a decision arrives on */
#define CH_EMPTY 0
#define CH_SELF  1
#define CH_OTHER 2

/* results told to the model (action.result) */
#define R_NONE      0
#define R_OK        1
#define R_DENIED    2
#define R_FORBIDDEN 3
#define R_FAILED    4
#define R_UNKNOWN   5

/* ---- Redis ---- */
mtype rstate = none;   /* the key's state field; none: no key */
bool  rgood;           /* the stored decision's digest is the request's */
byte  keydl;           /* when the key's TTL runs out */
bool  redisUp = true;
bool  restarted;
bool  linkA = true;    /* replica A reaches Redis (its pub/sub too) */
bool  cut;
byte  now;
byte  faults;         /* environment events so far (at most MAXFAULTS) */

/* ---- replica A ---- */
bool kick;             /* the waiting Request's wake-up (buffered 1) */
byte inflight;         /* "decided" announcements on their way to A */
bool dupd;             /* one announcement has been duplicated */
bool busy;             /* A is between a wake-up and its next wait: urgent */
bool deadlineFired;
bool opened;           /* scriptOpen has run (or failed) */
byte lastHB;           /* the last heartbeat */
mtype closing = none;  /* a close that could not reach Redis, retried */
bool gaveUp, withdrawn, revoked, aDead;

/* ---- ghosts: what happened, for the invariants ---- */
bool  acc;             /* scriptDecide accepted a decision */
mtype accO = none;     /* ... which one */
bool  accGood, accOther, accAuth, accBefore;
byte  resolved;        /* transitions of the key out of pending */
bool  reqDone;         /* Broker.Request returned */
bool  reqErr;          /* ... with an error (the gate denies) */
mtype reqOut = none;   /* ... else with this outcome */
bool  called, sent, answered;
byte  result = R_NONE;
bool  chkWithdrawn, chkCancelled, chkRevoked; /* seen at the last check */

/* A has something to do now: time waits for it (timers fire on time, and a
 * wake-up is handled before the next tick). */
#define URGENT (!reqDone && !aDead && (!opened || busy || kick || now > lastHB || \
	(closing == none && ((!deadlineFired && now >= EXP) || gaveUp || withdrawn))))

#define ended (reqDone || (aDead && rstate == none))

/* ---- invariants ---- */
/* I2: a confirm resolves at most once, and the accepted decision acts. */
#define AGREE (!(reqDone && !reqErr && acc) || reqOut == accO)

inline accept(o, good, ch, auth) {
	assert(resolved == 0);
	resolved++;
	acc = true; accO = o; accGood = good; accOther = (ch == CH_OTHER);
	accAuth = auth; accBefore = (now < EXP);
	assert(AGREE)
}

inline publish() {
	/* PUBLISH of the id on A's own channel of decisions (the key's wch
	 * field, written by scriptOpen): one wake-up on its way to A, carrying
	 * no decision; A reads the decision from the key (scriptFinish) */
	if
	:: linkA && redisUp && inflight < 2 -> inflight++
	:: else -> skip
	fi
}

/* Deciding peers on replica B (and on A: the scripts run in Redis, so it
 * makes no difference), through Gate.Resolve. */
proctype Peers() {
	byte i; bool ap, good, auth; byte ch;
	do
	:: i < DECISIONS ->
		/* Gate.Resolve up to Broker.Resolve, on replica B: a decision of
		 * any kind, the channel check, Broker.Lookup, the digest and the
		 * approver rule (mayDecide). Only what Lookup reads is shared, so
		 * one step; the gap that matters is the one before scriptDecide. */
		atomic {
			i++;
			if :: ap = true :: ap = false fi;
#ifndef WALK_BROKER
			if :: good = true :: good = false fi;
			if :: ch = CH_EMPTY :: ch = CH_SELF :: ch = CH_OTHER fi;
			if :: auth = true :: auth = false fi;
#else
			/* random walks of decisions that reach the broker */
			good = true; auth = true;
			if :: ch = CH_SELF :: ch = CH_OTHER :: ch = CH_OTHER fi;
#endif
			if
			:: ch == CH_EMPTY ->
				/* model: gate_refuse_nochannel */
				printf("EV gate_refuse_nochannel\n"); goto next
			:: ch != CH_EMPTY && !redisUp ->
				printf("EV lookup -> unavailable\n"); goto next
			:: ch != CH_EMPTY && redisUp && (rstate != pending || now >= EXP) ->
				/* model: lookup_notpending */
				printf("EV lookup -> notpending\n"); goto next
			:: else ->
				/* model: lookup_pending */
				printf("EV lookup -> pending\n")
			fi;
			if
			:: !good ->
				/* model: gate_refuse_digest */
				printf("EV gate_refuse_digest\n"); goto next
			:: good && !auth ->
				/* model: gate_refuse_forbidden */
				printf("EV gate_refuse_forbidden\n"); goto next
			:: else
			fi
		}
		/* Broker.Resolve: scriptDecide, atomic in Redis */
		atomic {
			if
			:: !redisUp ->
				printf("EV decide ap=%d good=%d ch=%d -> unavailable\n", ap, good, ch)
			:: redisUp && rstate != pending ->
				/* model: decide_notpending */
				printf("EV decide ap=%d good=%d ch=%d -> notpending\n", ap, good, ch)
#ifndef SEEDED_BUG
			:: redisUp && rstate == pending && now >= EXP ->
				/* model: decide_expire */
				rstate = expired; resolved++; publish();
				assert(resolved == 1);
				printf("EV decide ap=%d good=%d ch=%d -> expired\n", ap, good, ch)
			:: redisUp && rstate == pending && now < EXP && ch == CH_SELF ->
#else
			:: redisUp && rstate == pending && ch == CH_SELF ->
#endif
				/* model: decide_refuse_self */
				printf("EV decide ap=%d good=%d ch=%d -> self\n", ap, good, ch)
#ifndef SEEDED_BUG
			:: redisUp && rstate == pending && now < EXP && ch != CH_SELF && !good ->
#else
			:: redisUp && rstate == pending && ch != CH_SELF && !good ->
#endif
				/* model: decide_refuse_digest */
				printf("EV decide ap=%d good=%d ch=%d -> digest\n", ap, good, ch)
#ifndef SEEDED_BUG
			:: redisUp && rstate == pending && now < EXP && ch != CH_SELF && good ->
#else
			:: redisUp && rstate == pending && ch != CH_SELF && good ->
#endif
				printf("EV decide ap=%d good=%d ch=%d -> ok\n", ap, good, ch);
				if
				:: ap -> rstate = approved; /* model: decide_approve */ accept(approved, good, ch, auth)
				:: !ap -> rstate = denied; /* model: decide_deny */ accept(denied, good, ch, auth)
				fi;
				rgood = good; publish()
			fi
		}
next:
		atomic { ap = false; good = false; auth = false; ch = 0 }
	:: else -> break
	od
}

/* Pub/sub towards A: each announcement is delivered, lost, or delivered
 * twice. A reconnection of A's pub/sub wakes every waiter (kickAll). */
proctype PubSub() {
end:
	do
	:: atomic {
		inflight > 0 ->
		inflight--;
		if
		:: linkA && redisUp -> kick = true          /* delivered */
		:: skip                                     /* lost */
		:: linkA && redisUp && !dupd -> kick = true; dupd = true; inflight++ /* duplicated */
		fi
	   }
	od
}

/* The clock, and Redis's expiry of the key (lease_lapse). Time does not
 * pass while A is busy (it reacts to a wake-up before the next tick) nor past
 * A's deadline while A has not taken it: timers fire on time. */
proctype Clock() {
end:
	do
	:: atomic {
		now < TLIM && !URGENT ->
		now++;
		printf("EV tick now=%d\n", now);
		if
		:: rstate != none && now >= keydl ->
			/* model: lease_lapse */
			if :: rstate == pending -> resolved++ :: else fi;
			rstate = none;
			printf("EV lease_lapse\n")
		:: else
		fi
	   }
	od
}

/* The environment's faults, each at most once. */
proctype Env() {
end:
	do
	:: atomic { faults < MAXFAULTS && !gaveUp -> faults++; gaveUp = true; printf("EV cancel\n") }
	:: atomic { faults < MAXFAULTS && !withdrawn -> faults++; withdrawn = true; printf("EV withdraw\n") }
	:: atomic { faults < MAXFAULTS && !revoked -> faults++; revoked = true; printf("EV revoke\n") }
#ifndef NO_STORE_FAULTS
	/* failures of the store, of replica A and of its link (the traces
	 * written with -DNO_STORE_FAULTS are the ones every broker replays) */
	:: atomic { faults < MAXFAULTS && !aDead && !reqDone -> faults++; aDead = true; printf("EV a_dies\n") }
	:: atomic { faults < MAXFAULTS && !restarted && redisUp -> faults++; redisUp = false; inflight = 0; printf("EV redis_down\n") }
	:: atomic { !redisUp ->
		/* model: redis_restart: back, empty; every replica resubscribes
		 * and wakes its waiters (kickAll) */
		redisUp = true; restarted = true;
		if :: rstate == pending -> resolved++ :: else fi;
		rstate = none; kick = true; printf("EV redis_up\n") }
	:: atomic { faults < MAXFAULTS && !cut && linkA -> faults++; linkA = false; cut = true; inflight = 0; printf("EV link_down\n") }
	:: atomic { !linkA -> linkA = true; kick = true; printf("EV link_up\n") }
#endif
	od
}

/* Replica A: call.confirm -> Broker.Request -> the gate's later steps. */
proctype Waiter() {
	mtype closeAs = none, st = none;
	byte lastOK, ttl;

	/* scriptOpen */
	atomic {
		if
		:: aDead -> opened = true; goto dead
		:: !aDead && redisUp && linkA ->
			/* model: open */
			rstate = pending;
			keydl = EXP + LEASE; if :: now + LEASE < keydl -> keydl = now + LEASE :: else fi;
			lastOK = now; lastHB = now; opened = true;
			printf("EV open\n")
		:: !aDead && !(redisUp && linkA) ->
			printf("EV open -> unavailable\n"); opened = true;
			reqErr = true; reqDone = true; goto gate
		fi
	}
wait:
	busy = false;
	do
	:: aDead -> goto dead
	:: kick -> atomic { kick = false; busy = true; closeAs = closing }; break
	:: now > lastHB -> atomic { lastHB = now; busy = true; closeAs = closing }; break
	:: closing == none && !deadlineFired && now >= EXP ->
		/* model: deadline */
		atomic { deadlineFired = true; busy = true; closeAs = expired }; break
	:: closing == none && (gaveUp || withdrawn) ->
		atomic { busy = true; closeAs = cancelled }; break
	od;
	/* scriptFinish */
	atomic {
		if
		:: aDead -> goto dead
		:: !(redisUp && linkA) ->
			printf("EV finish -> unavailable\n");
			if
			:: closeAs != none ->
#ifdef OLD_CLOSE
				/* returned the close's outcome, the key left pending */
				reqOut = closeAs; reqDone = true; busy = false;
				printf("EV request -> %e\n", reqOut);
				goto gate
#else
				/* model: finish_retry_close */
				closing = closeAs;
				if
				:: now >= lastOK + LEASE ->
					/* the key has lapsed: an error, not a decision */
					reqErr = true; reqDone = true; busy = false;
					printf("EV request -> error\n"); goto gate
				:: else -> goto wait
				fi
#endif
			:: now >= lastOK + LEASE ->
				reqErr = true; reqDone = true; busy = false;
				printf("EV request -> error\n"); goto gate
			:: else -> goto wait
			fi
		:: else
		fi;
		if
		:: rstate == none ->
			/* model: finish_gone */
			reqErr = true; reqDone = true; busy = false;
			printf("EV finish -> gone\nEV request -> error\n"); goto gate
		:: rstate == pending && closeAs == none ->
			ttl = EXP + LEASE - now;
			if :: ttl > LEASE -> ttl = LEASE :: else fi;
			if
			:: ttl > 0 ->
				/* model: finish_renew */
				keydl = now + ttl; lastOK = now;
				printf("EV finish -> pending\n");
				goto wait
			:: else ->
				/* model: finish_expire */
				st = expired; resolved++
			fi
		:: rstate == pending && closeAs != none ->
			/* model: finish_expire, finish_cancel */
			st = closeAs; resolved++
		:: else ->
			/* model: finish_collect */
			st = rstate
		fi;
		assert(resolved == 1);
		rstate = none;   /* DEL; the script also PUBLISHes the end to every
		                  * replica's SubscribeEnded (not modelled: the
		                  * invariants do not read it) */
		/* decision(): an approval must carry the request's digest */
		if
		:: st == approved && !rgood -> reqErr = true
		:: else -> reqOut = st
		fi;
		reqDone = true; busy = false;
		assert(AGREE);
		printf("EV finish -> %e\n", st);
		st = none; closeAs = none; ttl = 0;
		if
		:: reqErr -> printf("EV request -> error\n")
		:: else -> printf("EV request -> %e\n", reqOut)
		fi
	}

gate:
	/* call.confirm: an approval after the wait was voided is a denial */
	if
	:: reqErr -> result = R_DENIED; goto told
	:: !reqErr && reqOut != approved -> result = R_DENIED; goto told
	:: else
	fi;
	if
	:: gaveUp || withdrawn ->
		printf("EV gate -> approved_after_cancel\n");
		result = R_DENIED; goto told
	:: else
	fi;
	/* call.reauthorize, then the catalogue and the context, in order; each
	 * check records what it saw */
	atomic {
		chkRevoked = revoked;
		if
		:: revoked -> printf("EV gate -> forbidden\n"); result = R_FORBIDDEN; goto told
		:: else
		fi
	}
	atomic {
		chkWithdrawn = withdrawn;
		if
		:: withdrawn -> printf("EV gate -> withdrawn\n"); result = R_DENIED; goto told
		:: else
		fi
	}
	atomic {
		chkCancelled = gaveUp;
		if
		:: gaveUp -> printf("EV gate -> cancelled\n"); result = R_DENIED; goto told
		:: else
		fi
	}
	/* call.callServer */
	atomic {
		called = true;
		printf("EV call\n");
		/* I1: only after an approval the broker accepted, with the request's
		 * digest, from another channel than the requester's, by an
		 * authorized approver, before expiry; I3: no catalogue change, no
		 * cancellation and rights held when the gate last checked. */
		assert(acc && accO == approved && accGood && accOther && accAuth && accBefore);
		assert(reqOut == approved && !reqErr);
		assert(!chkWithdrawn && !chkCancelled && !chkRevoked);
		if
		:: gaveUp ->
			/* the caller gave up between the check and the send: the
			 * transport returns the context's error, whether or not the
			 * request went out */
			if :: sent = true :: sent = false fi; answered = false;
			result = R_UNKNOWN
		:: !gaveUp ->
			if
			:: sent = false; answered = false; result = R_FAILED   /* refused before sending */
			:: sent = true; answered = true; result = R_OK
			:: sent = true; answered = true; result = R_FAILED     /* JSON-RPC error, isError */
			:: sent = true; answered = false; result = R_UNKNOWN   /* sent, no answer */
			fi
		fi;
		/* I5: never "failed" for a call that may have run */
		assert(!(sent && !answered) || result != R_FAILED)
	}
told:
	printf("EV result %d\n", result);
	goto done;
dead:
	busy = false;
	printf("EV dead\n");
done:
	skip
}

init {
	atomic {
		run Clock(); run Env(); run PubSub(); run Peers(); run Waiter()
	}
}

/* I4: every confirm ends (weak fairness), and by EXP + LEASE whatever fails */
ltl ends { <> ended }
ltl bounded { [] ((now > TMAX) -> ended) }
/* I2 as a temporal property, besides the assertions at each step */
ltl agree { [] AGREE }
