package runner

// LaplaceOK is laplaceOK for the external tests.
var LaplaceOK = laplaceOK
