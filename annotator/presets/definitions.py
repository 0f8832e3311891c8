"""What each label the presets offer means, as the annotation page's guidelines explain it to a first-time
annotator: the nugget types of DCH-1 and STC-3 (Zeng et al. 2017, section "Nugget annotation"; Sakai 2017,
section 2.4, which names the types alike), the breakdown labels (Tsunomori et al. 2020, the DBDC
definitions) and the NLPCC 2019 aspects (Shan et al. 2019, table 1). Keys are the stored value codes
and, for NLPCC, the aspects.
"""

from __future__ import annotations

from django.utils.translation import gettext_noop as N_

# value code -> what it means (the code is what the page shows before ": ")
VALUE_DEFINITIONS: dict[str, str] = {
    "CNUG0": N_(
        "The customer's post (or posts) stating the customer's initial problem, "
        "the one that made them contact the helpdesk."
    ),
    "CNUG": N_("Something the customer says that is useful to the helpdesk."),
    "CNUG*": N_("The customer tells the helpdesk that the problem has been solved."),
    "HNUG": N_("Something the helpdesk says that is useful to the customer."),
    "HNUG*": N_("The helpdesk gives the customer a solution to the problem."),
    "NaN": N_(
        "The post does not help the customer move towards a solved problem (greetings, thanks, irrelevant remarks)."
    ),
    "CNaN": N_("The customer's turn does not help the customer towards a solved problem."),
    "HNaN": N_("The helpdesk's turn does not help the customer towards a solved problem."),
    "O": N_("It is easy to continue the conversation after this system utterance."),
    "T": N_("It is difficult to continue the conversation smoothly after this system utterance."),
    "X": N_("It is difficult to continue the conversation at all after this system utterance."),
}

# NLPCC aspect -> what it asks (Shan et al. 2019, table 1); each aspect's two questions are its criteria
ASPECT_DEFINITIONS: dict[str, str] = {
    "syntax": N_("Syntax: the reply is correct and smooth, clear and without ambiguity."),
    "content_expression": N_(
        "Content expression: the reply says something clear, in a natural (not too formal) style, "
        "with neither too much nor too little information."
    ),
    "emotional_expression": N_(
        "Emotional expression: the reply shows a subjective attitude or a clear mood (Emotion), "
        "and would change the reader's mood, making them glad or sad (Affecting)."
    ),
    "topic_divergence": N_(
        "Topic divergence: the reply brings up new topics or entities and could lead to further turns."
    ),
    "contextual_association": N_(
        "Contextual association: the reply follows the topic, content or entities of the context."
    ),
}

# the severe-error question of NLPCC (no aspect of its own)
SEVERE_ERROR_DEFINITION = N_("Answer Yes when the reply is broken, offensive or unrelated nonsense.")

# why a preset's default K is what it is (said where a new project asks for more annotators than it has)
K_REASONS: dict[str, str] = {
    "dch1": N_("K = 3 is the DCH-1 preset's default: each DCH-1 dialogue was judged by three annotators."),
    "dbdc": N_(
        "K = 30 is the breakdown preset's default: in DBDC3 each system utterance was labelled by 30 annotators, "
        "so that its distribution of NB, PB and B is reliable. A smaller team can lower K."
    ),
    "nlpcc": N_("K = 3 is the NLPCC preset's default: each NLPCC reply was judged by three annotators."),
}
