package runner

// LaplaceOK is laplaceOK for the external tests.
var LaplaceOK = laplaceOK

// FmtSeeds is fmtSeeds for the external tests.
var FmtSeeds = fmtSeeds
