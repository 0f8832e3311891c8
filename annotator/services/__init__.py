"""Domain operations (services write; selectors read). Views, commands, the API and tasks call these."""
