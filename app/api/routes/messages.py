"""placeholder until core"""

from fastapi import APIRouter

router = APIRouter()
