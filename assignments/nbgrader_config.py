"""nbgrader's configuration for the course: run nbgrader's commands from this folder.

    cd assignments
    nbgrader generate_assignment minimax   # source/ -> release/: solutions and hidden tests out
    nbgrader autograde minimax             # submitted/<student>/minimax/ -> autograded/, the db
    nbgrader generate_feedback minimax     # autograded/ -> feedback/<student>/minimax/*.html
    nbgrader export                        # gradebook.db -> grades.csv

The source notebooks are generated (python assignments/make_assignments.py) from the texts in
content/ and the solutions package: edit those, not the notebooks.
"""

import os

c = get_config()  # noqa: F821 - nbgrader provides get_config when it loads this file

# The kernels nbgrader starts inherit this: strings hash as in the grader's sandbox, so an agent
# that walks a set of strings plays the same moves on both roads (Assignment 5).
os.environ["PYTHONHASHSEED"] = "0"

# Releases and submissions go through this course's own exchange folder, so a release run as
# root does not create /usr/local/share/nbgrader/exchange for the whole machine. On a shared
# hub, point it at the folder the hub's students can reach.
c.Exchange.root = os.path.join(os.path.dirname(os.path.abspath(__file__)), "exchange")

# The course id students give to `nbgrader fetch_assignment` and `nbgrader submit`. The
# assignments are minimax, alphabeta, depth_limited, bug_hunt, connect_four and chance_and_maxn
# (source/<assignment>/), in that order; `nbgrader generate_assignment` adds each one to the
# gradebook.
c.CourseDirectory.course_id = "adversarial-search"

# A graded cell may call a student's search several times; each call has its own 10 s limit
# inside the cell (as in `python -m autograder grade`), so the cell limit only stops runaways.
c.Execute.timeout = 180

# The released cells say exactly this where the solution was (the autograder's feedback calls
# a function that raises NotImplementedError "not implemented").
c.ClearSolutions.code_stub = {"python": "# YOUR CODE HERE\nraise NotImplementedError()"}

# Feedback shows each failed hidden test's message (instance, expected, got, hint) but not the
# test code itself, nor the source of the collapsed cells of the course's code (tagged
# course-code: the setup's imports and self-check helpers, the hidden tests' judge; their
# outputs stay, so a setup that failed still shows why): some 120 KB of highlighted code a page,
# and most of the seconds each page took.
c.GenerateFeedback.preprocessors = [
    "nbgrader.preprocessors.GetGrades",
    "nbgrader.preprocessors.ClearHiddenTests",
    "nbconvert.preprocessors.TagRemovePreprocessor",
    "nbconvert.preprocessors.CSSHTMLHeaderPreprocessor",
]
c.TagRemovePreprocessor.enabled = True  # nbgrader does not enable a listed preprocessor itself
c.TagRemovePreprocessor.remove_input_tags = {"course-code"}
