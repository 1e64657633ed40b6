"""The run plan: which runs a config asks for, their ids, and the paths every stage names."""
