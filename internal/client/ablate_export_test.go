package client

var Ablate = &ablate
