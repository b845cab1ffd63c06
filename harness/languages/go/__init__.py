"""Go, as Exercism's Go track lays it out."""
