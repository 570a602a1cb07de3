# removed
