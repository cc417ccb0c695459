"""The platforms a class comes from and goes back to: nbgrader, Gradescope, the LMS."""
