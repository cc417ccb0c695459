"""What people read: grades.csv, results.json, the feedback and class pages, the terminal."""
