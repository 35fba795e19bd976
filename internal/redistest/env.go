package redistest

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// The servers .ci/redis.sh starts are found through these environment
// variables. Under CI=true a missing variable, or a server that does not
// answer, fails the test; elsewhere it skips, saying how to start them.
const (
	// EnvAddr is the plain node's host:port.
	EnvAddr = "REDIS_ADDR"
	// EnvClusterAddrs are the cluster's nodes, comma-separated host:ports.
	EnvClusterAddrs = "REDIS_CLUSTER_ADDRS"
	// EnvTLSAddr is the TLS-only node's host:port.
	EnvTLSAddr = "REDIS_TLS_ADDR"
	// EnvTLSCA is the PEM file of the CA that signed the TLS node's
	// certificate.
	EnvTLSCA = "REDIS_TLS_CA"
	// EnvTLSUser and EnvTLSPassword are the TLS node's broker user: only
	// the commands, keys and channels the broker needs.
	EnvTLSUser     = "REDIS_TLS_USER"
	EnvTLSPassword = "REDIS_TLS_PASSWORD"
	// EnvTLSAdminUser and EnvTLSAdminPassword are the TLS node's admin
	// user, for a test's own inspection (listing keys, the ACL log).
	EnvTLSAdminUser     = "REDIS_TLS_ADMIN_USER"
	EnvTLSAdminPassword = "REDIS_TLS_ADMIN_PASSWORD"
)

// howToRun is appended to a skip: how to get the servers.
const howToRun = "; to run: source .ci/redis.sh (it starts a plain node, a three-master cluster and a TLS+ACL node on loopback and exports REDIS_*), then go test; redis_stop stops them"

// env returns the environment variable name, or skips or fails t.
func env(t testing.TB, name string) string {
	t.Helper()
	v := os.Getenv(name)
	if v == "" {
		SkipOrFail(t, name+" is not set"+howToRun)
	}
	return v
}

// Addr returns the plain node's address ($REDIS_ADDR) once it answers
// PING; otherwise it skips or fails t (see [SkipOrFail]).
func Addr(t testing.TB) string {
	t.Helper()
	addr := env(t, EnvAddr)
	if err := Ping(addr); err != nil {
		SkipOrFail(t, "Redis at "+EnvAddr+"="+addr+" does not answer: "+err.Error()+howToRun)
	}
	return addr
}

// ClusterAddrs returns the cluster's node addresses
// ($REDIS_CLUSTER_ADDRS) once every node answers PING and reports
// cluster_state:ok; otherwise it skips or fails t.
func ClusterAddrs(t testing.TB) []string {
	t.Helper()
	v := env(t, EnvClusterAddrs)
	addrs := strings.Split(v, ",")
	for _, a := range addrs {
		if err := clusterOK(a); err != nil {
			SkipOrFail(t, "Redis Cluster node "+a+" of "+EnvClusterAddrs+"="+v+": "+err.Error()+howToRun)
		}
	}
	return addrs
}

func clusterOK(addr string) error {
	c := redis.NewClient(&redis.Options{Addr: addr, MaxRetries: -1})
	defer c.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	info, err := c.ClusterInfo(ctx).Result()
	if err != nil {
		return err
	}
	if !strings.Contains(info, "cluster_state:ok") {
		return errors.New("cluster_state is not ok")
	}
	return nil
}

// ClusterFromEnv returns a new cluster client on $REDIS_CLUSTER_ADDRS (see
// [ClusterAddrs]), closed when t ends. opt may be nil; its Addrs are
// replaced.
func ClusterFromEnv(t testing.TB, opt *redis.ClusterOptions) *redis.ClusterClient {
	t.Helper()
	addrs := ClusterAddrs(t)
	if opt == nil {
		opt = &redis.ClusterOptions{}
	}
	o := *opt
	o.Addrs = addrs
	c := redis.NewClusterClient(&o)
	t.Cleanup(func() { _ = c.Close() })
	return c
}

// TLSOptions returns the options of a client of the TLS node as its broker
// user: $REDIS_TLS_ADDR, verified against $REDIS_TLS_CA, with
// $REDIS_TLS_USER and $REDIS_TLS_PASSWORD. It skips or fails t when one is
// missing, the CA file cannot be read, or the node does not answer PING as
// that user.
func TLSOptions(t testing.TB) *redis.Options {
	t.Helper()
	return tlsOptions(t, EnvTLSUser, EnvTLSPassword)
}

// TLSAdminOptions is [TLSOptions] as the admin user
// ($REDIS_TLS_ADMIN_USER), for a test's own inspection.
func TLSAdminOptions(t testing.TB) *redis.Options {
	t.Helper()
	return tlsOptions(t, EnvTLSAdminUser, EnvTLSAdminPassword)
}

func tlsOptions(t testing.TB, userVar, passVar string) *redis.Options {
	t.Helper()
	addr, caFile := env(t, EnvTLSAddr), env(t, EnvTLSCA)
	user, pass := env(t, userVar), env(t, passVar)
	pem, err := os.ReadFile(caFile)
	if err != nil {
		SkipOrFail(t, EnvTLSCA+": "+err.Error()+howToRun)
	}
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(pem) {
		SkipOrFail(t, EnvTLSCA+"="+caFile+" holds no PEM certificate"+howToRun)
	}
	opt := &redis.Options{
		Addr: addr, Username: user, Password: pass,
		TLSConfig: &tls.Config{RootCAs: pool, MinVersion: tls.VersionTLS12},
	}
	if err := pingWith(opt); err != nil {
		SkipOrFail(t, fmt.Sprintf("Redis at %s=%s (TLS, user %s) does not answer: %v%s", EnvTLSAddr, addr, user, err, howToRun))
	}
	return opt
}

// TLSFromEnv returns a new client of the TLS node as its broker user (see
// [TLSOptions]), closed when t ends. name, unless empty, names its
// connections (CLIENT SETNAME).
func TLSFromEnv(t testing.TB, name string) *redis.Client {
	t.Helper()
	opt := TLSOptions(t)
	opt.ClientName = name
	c := redis.NewClient(opt)
	t.Cleanup(func() { _ = c.Close() })
	return c
}

// TLSAdminFromEnv returns a new client of the TLS node as its admin user,
// closed when t ends.
func TLSAdminFromEnv(t testing.TB) *redis.Client {
	t.Helper()
	c := redis.NewClient(TLSAdminOptions(t))
	t.Cleanup(func() { _ = c.Close() })
	return c
}

func pingWith(opt *redis.Options) error {
	o := *opt
	o.MaxRetries = -1
	c := redis.NewClient(&o)
	defer c.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	return c.Ping(ctx).Err()
}

// Keys returns the keys matching pattern on every master rdb reaches (one
// node for a plain client, each master for a cluster client), for a test's
// check that nothing was left behind. It uses KEYS: test servers only.
func Keys(ctx context.Context, rdb redis.UniversalClient, pattern string) ([]string, error) {
	cc, ok := rdb.(*redis.ClusterClient)
	if !ok {
		return rdb.Keys(ctx, pattern).Result()
	}
	var (
		out []string
		mu  sync.Mutex
	)
	err := cc.ForEachMaster(ctx, func(ctx context.Context, c *redis.Client) error {
		k, err := c.Keys(ctx, pattern).Result()
		if err != nil {
			return err
		}
		mu.Lock()
		out = append(out, k...)
		mu.Unlock()
		return nil
	})
	return out, err
}
