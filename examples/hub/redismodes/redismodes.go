// Package redismodes makes the Redis clients for the confirm broker:
// one plain node, Redis Cluster, and a TLS node with a user that may run
// only what the broker needs. Every Hub replica makes its own client and its
// own broker, with the same Options.Prefix.
package redismodes

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"os"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/ocpgen/ocpgen/redisbroker"
)

// Plain is one Redis node, or a managed primary endpoint.
func Plain(addr string) redis.UniversalClient {
	return redis.NewClient(&redis.Options{Addr: addr})
}

// Cluster is Redis Cluster. go-redis re-reads which master serves a slot
// every ClusterStateReloadInterval (60 s unless set) or on a MOVED reply; a
// master that died answers nothing, so until then every confirm fails and
// is denied. A second keeps that window short.
func Cluster(addrs []string) redis.UniversalClient {
	return redis.NewClusterClient(&redis.ClusterOptions{
		Addrs:                      addrs,
		ClusterStateReloadInterval: time.Second,
	})
}

// TLSUser is a TLS-only node as a user created with
// "ACL SETUSER user on >password " + redisbroker.ACLRule(prefix). (For a
// cluster, set the same fields in redis.ClusterOptions.)
func TLSUser(addr, caFile, user, password string) (redis.UniversalClient, error) {
	pem, err := os.ReadFile(caFile)
	if err != nil {
		return nil, err
	}
	roots := x509.NewCertPool()
	if !roots.AppendCertsFromPEM(pem) {
		return nil, errors.New(caFile + ": no PEM certificate")
	}
	return redis.NewClient(&redis.Options{
		Addr:      addr,
		Username:  user,
		Password:  password,
		TLSConfig: &tls.Config{RootCAs: roots, MinVersion: tls.VersionTLS12},
	}), nil
}

// Brokers are one replica's brokers when confirms are sharded by prefix:
// each prefix's hash tag is its own slot, which the cluster may place on
// another master. Each gate (here one per MCP server) gets its own broker,
// and every replica uses the same prefixes.
func Brokers(rdb redis.UniversalClient) (tickets, billing *redisbroker.Broker, err error) {
	if tickets, err = redisbroker.New(rdb, redisbroker.Options{Prefix: "{ocp-confirm-tickets}:"}); err != nil {
		return nil, nil, err
	}
	if billing, err = redisbroker.New(rdb, redisbroker.Options{Prefix: "{ocp-confirm-billing}:"}); err != nil {
		_ = tickets.Close()
		return nil, nil, err
	}
	return tickets, billing, nil
}
