package main

func util() {}
