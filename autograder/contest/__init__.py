"""Assignment 5, graded by play: the referee, the opponents, the agent, the tournament."""
