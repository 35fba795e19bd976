package gen

import "github.com/ocpgen/ocpgen/gen/internal/load"

// ConfigFile is the configuration file's name: ocpgen generate, check and
// diff without -snapshot look for it from the working directory up to the
// module root.
const ConfigFile = "ocpgen.yaml"

// Config is a module's configuration file: every server whose bridge
// package ocpgen generates, in the file's order.
type Config = load.Config

// ConfigServer is one server of a Config: its paths resolved against the
// configuration file's directory, its package name decided.
type ConfigServer = load.ConfigServer

// LoadConfig parses a configuration file named file (its directory is what
// relative paths are resolved against). Every error names the file, line
// and column; on error the Config is nil and the error is a Diagnostics.
// It reads the file system only to find whether two outs are one directory
// (through a symbolic link).
func LoadConfig(file string, data []byte) (*Config, error) {
	c, ds := load.LoadConfig(file, data)
	if err := ds.Err(); err != nil {
		return nil, err
	}
	return c, nil
}
