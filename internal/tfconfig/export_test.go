package tfconfig

// Snake is how Kyku's names are written in HCL (snake), for the
// reference test.
var Snake = snake
