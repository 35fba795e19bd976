// Package readme holds the tests of the project's documentation: every file
// block of README.md and docs/*.md equals the file it names (the files are
// compiled: the Hub module examples/hub by TestOwnHubRecipe, which runs
// README.md's "Your own Hub" recipe in a module of its own), and no Go
// block is shown that is not such a file.
package readme
