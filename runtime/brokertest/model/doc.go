// Package model holds confirm.pml, a Promela model of one write confirm's
// life across two Hub replicas on the Redis broker, with the gate's steps
// around it, and the test that checks it exhaustively with spin (see
// docs/security-model.md, "The confirm protocol, checked"). It has no Go
// API: the traces the checker produces are replayed against the brokers by
// runtime/brokertest (Replay).
package model
