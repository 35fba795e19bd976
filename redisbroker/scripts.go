package redisbroker

import (
	"context"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"
)

// Every state change of a confirm happens in one of these scripts, on the
// server, atomically: no decision is ever read by a client and written back.
// Each is named after the transition of the confirm model that it is
// ("-- model: NAME"; runtime/brokertest/model/confirm.pml). Two are not
// scripts: the key's own expiry (model: lease_lapse), and a restart that
// loses the data (model: redis_restart).
//
// A pending confirm is one hash, KEYS[1] = PREFIX c:ID, with the fields
//
//	state    pending | approved | denied | expired | cancelled
//	req      the ConfirmRequest JSON that peers are shown
//	rp       sha256 of the requester's Peer ("" when it has none)
//	digest   the request's digest
//	exp      Expires, in microseconds since the epoch
//	wch      the waiting replica's own channel of decisions
//	by_peer, by_id, ddigest   set with a decision: who decided, and the
//	                          digest the decision carried
//
// and one member of the index KEYS[2] = PREFIX pending (a sorted set scored
// by exp), which lists it to peers while it is pending. Times are the
// server's (TIME), so replicas with skewed clocks agree on expiry. The key's
// TTL is the waiting replica's lease, renewed while it waits and never past
// exp plus one lease: a replica that dies takes its confirms with it, and a
// confirm that outlives every deadline vanishes.
//
// Large integers never pass through Lua's tostring (which would print
// 1.7e+15): they are formatted with %.0f.
const luaPrelude = `
local function now_us()
  local t = redis.call('TIME')
  return tonumber(t[1]) * 1000000 + tonumber(t[2])
end
local function int(x) return string.format('%.0f', x) end
-- The key's TTL in ms: the lease, but never past exp + lease.
local function ttl_ms(now, exp, lease)
  local left = math.floor((exp - now) / 1000) + lease
  if left < lease then return left end
  return lease
end
`

// open registers a confirm and announces it.
// ARGV: id, request JSON, requester peer hash, digest, exp (µs), lease (ms),
// channel of new confirms, the waiting replica's channel of decisions.
// Returns 'ok', 'dup' (the id is taken) or 'expired' (exp has passed:
// nothing is stored).
var scriptOpen = redis.NewScript(luaPrelude + `
local now = now_us()
redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', '(' .. int(now))
if redis.call('EXISTS', KEYS[1]) == 1 then return 'dup' end
local exp = tonumber(ARGV[5])
if not exp or now >= exp then return 'expired' end
-- model: open
redis.call('HSET', KEYS[1], 'state', 'pending', 'req', ARGV[2], 'rp', ARGV[3], 'digest', ARGV[4], 'exp', ARGV[5], 'wch', ARGV[8])
redis.call('PEXPIRE', KEYS[1], int(ttl_ms(now, exp, tonumber(ARGV[6]))))
redis.call('ZADD', KEYS[2], ARGV[5], ARGV[1])
redis.call('PUBLISH', ARGV[7], ARGV[2])
return 'ok'
`)

// decide applies a peer's decision, in the order of the in-memory broker's
// checks: not pending, expired (which ends the confirm), requester's own
// channel, digest. A decision is announced (the id, nothing else: it only
// wakes) on the waiting replica's own channel (wch), so it wakes that
// replica alone.
// ARGV: id, '1' to approve or '0' to deny, the decision's digest, the
// deciding Peer's hash (empty when it has none), the deciding Peer, the deciding
// principal's ID.
// Returns 'ok', 'notpending', 'expired', 'self' or 'digest'.
var scriptDecide = redis.NewScript(luaPrelude + `
local f = redis.call('HMGET', KEYS[1], 'state', 'exp', 'rp', 'digest', 'wch')
if f[1] ~= 'pending' then return 'notpending' end -- model: decide_notpending
local now = now_us()
if now >= tonumber(f[2]) then
  -- model: decide_expire
  redis.call('HSET', KEYS[1], 'state', 'expired')
  redis.call('ZREM', KEYS[2], ARGV[1])
  if f[5] then redis.call('PUBLISH', f[5], ARGV[1]) end
  return 'expired'
end
if ARGV[4] == '' or ARGV[4] == f[3] then return 'self' end -- model: decide_refuse_self
if ARGV[3] ~= f[4] then return 'digest' end -- model: decide_refuse_digest
-- model: decide_approve, decide_deny
local state = 'denied'
if ARGV[2] == '1' then state = 'approved' end
redis.call('HSET', KEYS[1], 'state', state, 'by_peer', ARGV[5], 'by_id', ARGV[6], 'ddigest', ARGV[3])
redis.call('ZREM', KEYS[2], ARGV[1])
if f[5] then redis.call('PUBLISH', f[5], ARGV[1]) end
return 'ok'
`)

// finish is the waiting replica's only script. With an empty ARGV[2] it
// checks: a pending confirm has its lease renewed and stays; an ended one is
// collected (deleted) and returned. With ARGV[2] = 'expired' or 'cancelled'
// it ends a still-pending confirm that way first. A confirm that is gone
// (Redis restarted or failed over, or the lease ran out) is reported as such.
// The end of a collected confirm is announced in the same script (one round
// trip less for the waiting replica): ARGV[4] .. state .. '"}' is published
// on ARGV[5], ARGV[4] being the ConfirmEnded JSON up to the outcome's value.
// An approval whose digest is not the request's is not announced: the
// waiting replica refuses it (decision), and its Request fails.
// ARGV: id, empty (check) or 'expired' or 'cancelled' (close), lease (ms),
// the end's JSON prefix, channel of ends.
// Returns {'pending'}, {'gone'} or {state, by_peer, by_id, ddigest}.
var scriptFinish = redis.NewScript(luaPrelude + `
local f = redis.call('HMGET', KEYS[1], 'state', 'exp', 'by_peer', 'by_id', 'ddigest', 'digest')
if not f[1] then
  -- model: finish_gone (after redis_restart or lease_lapse)
  redis.call('ZREM', KEYS[2], ARGV[1])
  return {'gone'}
end
local state = f[1]
if state == 'pending' then
  if ARGV[2] == '' then
    local ttl = ttl_ms(now_us(), tonumber(f[2]), tonumber(ARGV[3]))
    if ttl > 0 then
      -- model: finish_renew
      redis.call('PEXPIRE', KEYS[1], int(ttl))
      return {'pending'}
    end
    state = 'expired' -- model: finish_expire
  else
    state = ARGV[2] -- model: finish_expire, finish_cancel
  end
  f[3], f[4], f[5] = false, false, false
end
-- model: finish_collect
redis.call('DEL', KEYS[1])
redis.call('ZREM', KEYS[2], ARGV[1])
if state ~= 'approved' or f[5] == f[6] then
  redis.call('PUBLISH', ARGV[5], ARGV[4] .. state .. '"}')
end
return {state, f[3] or '', f[4] or '', f[5] or ''}
`)

// prune drops from the index the confirms whose key is gone (a dead
// replica's, whose lease ran out), checking each key on the server so a live
// confirm is never dropped.
// KEYS: the index, then one confirm key per id. ARGV: the ids.
var scriptPrune = redis.NewScript(`
for i, id in ipairs(ARGV) do
  if redis.call('EXISTS', KEYS[i + 1]) == 0 then redis.call('ZREM', KEYS[1], id) end
end
return 0
`)

// combiner runs the scripts a broker starts on its own (open, finish) for
// several goroutines in one round trip. The first caller runs its script at
// once, as a plain EVALSHA: a lone confirm pays nothing. Callers that come
// while a round trip is in flight queue; when it returns, the whole queue
// goes in the next one, as one pipeline, run by the first of them. A burst
// of decisions thus wakes its waiting replicas into a few pipelines instead
// of one connection, write and read each: on a loaded machine it is the
// CPU of those system calls and wake-ups that the burst queues for, not
// Redis. Each script is still atomic on its own; the pipeline groups round
// trips, not transitions.
type combiner struct {
	rdb     redis.UniversalClient
	timeout time.Duration // of each round trip

	mu    sync.Mutex
	busy  bool    // a round trip is in flight
	queue []*call // waiting for the next one
}

// call is one script run for one caller.
type call struct {
	s    *redis.Script
	keys []string
	args []any
	cmd  *redis.Cmd
	// next delivers nil when cmd is set by another caller's round trip, or
	// the batch this caller must run (itself first).
	next chan []*call
}

// run runs s with keys and args, alone or with the calls queued behind a
// round trip in flight. It waits at most twice the timeout: the round trip
// in flight, then its own.
func (c *combiner) run(s *redis.Script, keys []string, args ...any) *redis.Cmd {
	me := &call{s: s, keys: keys, args: args}
	batch := []*call{me}
	c.mu.Lock()
	if c.busy {
		me.next = make(chan []*call, 1)
		c.queue = append(c.queue, me)
		c.mu.Unlock()
		if batch = <-me.next; batch == nil {
			return me.cmd
		}
	} else {
		c.busy = true
		c.mu.Unlock()
	}
	c.exec(batch)
	c.release()
	for _, o := range batch[1:] {
		o.next <- nil
	}
	return me.cmd
}

// release ends the round trip in flight: the calls queued meanwhile go in
// the next one, run by the first of them.
func (c *combiner) release() {
	c.mu.Lock()
	next := c.queue
	c.queue = nil
	c.busy = len(next) > 0
	c.mu.Unlock()
	if len(next) > 0 {
		next[0].next <- next
	}
}

// exec runs batch in one round trip and sets each call's cmd. A script
// Redis does not have (NOSCRIPT: it restarted) did not run, and is run
// again on its own, loading it.
func (c *combiner) exec(batch []*call) {
	ctx, cancel := context.WithTimeout(context.Background(), c.timeout)
	defer cancel()
	if len(batch) == 1 {
		o := batch[0]
		o.cmd = o.s.Run(ctx, c.rdb, o.keys, o.args...)
		return
	}
	_, _ = c.rdb.Pipelined(ctx, func(p redis.Pipeliner) error {
		for _, o := range batch {
			o.cmd = o.s.EvalSha(ctx, p, o.keys, o.args...)
		}
		return nil
	})
	for _, o := range batch {
		if redis.HasErrorPrefix(o.cmd.Err(), "NOSCRIPT") {
			o.cmd = o.s.Run(ctx, c.rdb, o.keys, o.args...)
		}
	}
}
