"""The hidden autograder: grades a class of notebooks for values, best moves and pruning."""
