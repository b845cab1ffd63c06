"""JavaScript, as Exercism's JavaScript track lays it out."""
