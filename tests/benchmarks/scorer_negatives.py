"""Hand-written negatives for the learned token scorer: products, models and names near login words.

The labelled rounds hold few of these, and they are the scorer's natural confusion: a word with
digits glued on (`Windows11`, `iPhone15`) next to "log in" or "password" looks like `Rover2019`.
Written for training only (none of them is a test's sentence); `train_token_scorer.py` adds them
to every fold's negatives.
"""

from __future__ import annotations

NEGATIVES: list[str] = [
    "can't sign in on the iPad9 since the update",
    "the Pixel8 keeps asking for my password after every reboot",
    "password reset emails never arrive on Outlook2019",
    "logged into the PS5 but the account shows offline",
    "my Galaxy S23 login screen froze again",
    "the Office365 account for the club is finally set up",
    "the Windows10 login is so slow on this laptop",
    "Xbox360 account recovery is a nightmare",
    "the wifi on my MacBookAir2020 drops every hour",
    "the router is a FritzBox7590, the password is on the sticker underneath",
    "my Kindle4 won't connect to the hotel wifi",
    "entering the PIN on the Nokia3310 took forever",
    "the code review for PR 4521 is waiting on you",
    "unlock the Series7 watch with your phone first",
    "I use a YubiKey5 for my work login",
    "the login page of Moodle4 looks different now",
    "Firefox115 forgets my passwords when I close it",
    "my username there is just my first name",
    "the security key is a Titan2 from Google",
    "he asked for the code to the Python311 migration branch",
    "door sensor battery CR2032 needs replacing",
    "the alarm panel is a DSC PowerSeries Neo, model HS2016",
    "the safe is a Yale YSV/250/DB2, not big",
    "my account on Steam is linked to the old Gmail",
    "pass me the 18mm spanner, the one by the door",
    "the key fob for the Audi A4 needs a new battery",
    "the gate remote is a Nice FLO2R-S",
    "enter the building via door B2 after 6pm",
    "the locker is number 114 on the second floor",
    "use the HDMI2 input on the TV, the login screen is there",
]
